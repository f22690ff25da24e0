//! `[[analysis.quantity]]`: a named number derived from the sweep's estimates, compiled when the
//! declaration is read: `fixed_ms = "(prefill_seconds[slices=4] - prefill_seconds[slices=1]) / 384 * 1000"`.
//!
//! A formula reads metrics' means at settings (`metric` at the setting it is evaluated at,
//! `metric[param=value, ...]` at that setting with those params replaced), the declared fit's terms
//! (`fit.fixed`, `fit.per_unit`), quantities declared before it (by name) and constants. References
//! become variables of one compiled evalexpr tree, so evaluating it never parses text again.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::expression::Expression;

/// One quantity as declared.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QuantityDecl {
    pub name: String,
    /// The formula, e.g. `sequential_us / pipelined_us`.
    pub expr: String,
    /// Printed after the value (`ms`, `GB/s`, `%`); none for a plain ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// What a variable of a compiled formula stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum QuantityTerm {
    /// A metric's mean (or a numeric param's value) at the evaluated setting with `overrides` applied.
    Metric { name: String, overrides: Vec<(String, String)> },
    /// The declared fit's fixed term at the evaluated setting's fit group.
    FitFixed,
    /// The declared fit's slope (per unit of x).
    FitPerUnit,
}

/// A quantity ready to evaluate: its tree and what each variable `__t<i>` reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    pub name: String,
    pub unit: Option<String>,
    /// The formula as declared, for messages and the report.
    pub expr: String,
    /// The formula over `__t0`, `__t1`, ...: one compiled tree.
    pub expression: Expression,
    /// `terms[i]` is the variable `__t<i>`.
    pub terms: Vec<QuantityTerm>,
}

/// `name[ ... ]`: a metric at another setting.
static REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([A-Za-z_][A-Za-z0-9_]*)\s*\[([^\[\]]*)\]").expect("a constant pattern"));
static FIT_TERM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bfit\.(fixed|per_unit)\b").expect("a constant pattern"));
static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("a constant pattern"));

impl Quantity {
    /// Compiles `decl` given the quantities declared before it (inlined where named). The error is one
    /// line naming the part of the formula at fault.
    pub fn compile(decl: &QuantityDecl, earlier: &[Quantity]) -> Result<Quantity, String> {
        let inlined = inline_earlier(&decl.expr, earlier)?;
        let mut terms: Vec<QuantityTerm> = Vec::new();
        let with_fit = FIT_TERM.replace_all(&inlined, |caps: &regex::Captures| {
            let term = if &caps[1] == "fixed" { QuantityTerm::FitFixed } else { QuantityTerm::FitPerUnit };
            variable_for(&mut terms, term)
        });
        let mut bad_reference = None;
        let with_references = REFERENCE.replace_all(&with_fit, |caps: &regex::Captures| match overrides_of(&caps[2]) {
            Ok(overrides) => variable_for(&mut terms, QuantityTerm::Metric { name: caps[1].to_string(), overrides }),
            Err(message) => {
                bad_reference.get_or_insert(format!("`{}`: {message}", &caps[0]));
                String::new()
            }
        });
        if let Some(message) = bad_reference {
            return Err(message);
        }
        let mut text = with_references.into_owned();
        let invalid = |error: String| {
            let reason = error.split_once("`: ").map_or(error.as_str(), |(_, reason)| reason).to_string();
            format!("invalid expression `{}`: {reason}", decl.expr)
        };
        // A bare name is a metric at the evaluated setting itself.
        let bare = Expression::parse(&text).map_err(invalid)?;
        for name in bare.names().iter().filter(|name| !name.starts_with("__t")) {
            let variable = variable_for(&mut terms, QuantityTerm::Metric { name: name.clone(), overrides: Vec::new() });
            text = replace_word(&text, name, &variable);
        }
        let expression = Expression::parse(&text).map_err(invalid)?;
        let quantity =
            Quantity { name: decl.name.clone(), unit: decl.unit.clone(), expr: decl.expr.clone(), expression, terms };
        // A type or arity error fails whatever the numbers: found now, with every term 1.
        quantity
            .evaluate(&vec![1.0; quantity.terms.len()])
            .map_err(|error| format!("invalid expression `{}`: {error}", decl.expr))?;
        Ok(quantity)
    }

    /// The formula's value with `values[i]` bound to term i; None when it is not a finite number.
    pub fn value(&self, values: &[f64]) -> Option<f64> {
        self.evaluate(values).ok().filter(|value| value.is_finite())
    }

    fn evaluate(&self, values: &[f64]) -> Result<f64, String> {
        let names: Vec<String> = (0..values.len()).map(|index| format!("__t{index}")).collect();
        self.expression.number(names.iter().map(String::as_str).zip(values.iter().copied()))
    }
}

/// The variable standing for `term`, shared by every occurrence of the same term.
fn variable_for(terms: &mut Vec<QuantityTerm>, term: QuantityTerm) -> String {
    let index = terms.iter().position(|known| *known == term).unwrap_or_else(|| {
        terms.push(term);
        terms.len() - 1
    });
    format!("__t{index}")
}

/// `slices=4, tbo="off"` -> [("slices", "4"), ("tbo", "off")]; values as the CSV writes them.
fn overrides_of(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut overrides: Vec<(String, String)> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|part| !part.is_empty()) {
        let (param, value) = part.split_once('=').ok_or("expected `param=value` inside [ ]")?;
        let param = param.trim().to_string();
        let value = value.trim().trim_matches('"').trim_matches('\'').to_string();
        if param.is_empty() || value.is_empty() {
            return Err("expected `param=value` inside [ ]".into());
        }
        if overrides.iter().any(|(known, _)| *known == param) {
            return Err(format!("`{param}` is set twice"));
        }
        overrides.push((param, value));
    }
    if overrides.is_empty() {
        return Err("empty [ ]: name the params that differ, e.g. [slices=4]".into());
    }
    Ok(overrides)
}

/// Earlier quantities named in `expr` replaced by their formulas in parentheses (a later or unknown
/// quantity is a metric name to the caller, checked against the declared metrics).
fn inline_earlier(expr: &str, earlier: &[Quantity]) -> Result<String, String> {
    let mut text = expr.to_string();
    for quantity in earlier.iter().rev() {
        if REFERENCE.captures_iter(&text).any(|caps| caps[1] == quantity.name) {
            return Err(format!(
                "`{}` is a quantity: it has no value at another setting ([ ] is for metrics)",
                quantity.name
            ));
        }
        text = replace_word(&text, &quantity.name, &format!("({})", quantity.expr));
    }
    Ok(text)
}

/// `text` with every whole word `word` replaced (not inside longer names, not after a `.`).
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for found in WORD.find_iter(text) {
        let after_dot = text[..found.start()].ends_with('.');
        if found.as_str() == word && !after_dot {
            out.push_str(&text[last..found.start()]);
            out.push_str(by);
            last = found.end();
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, expr: &str) -> QuantityDecl {
        QuantityDecl { name: name.into(), expr: expr.into(), unit: None }
    }

    #[test]
    fn references_become_terms_shared_by_repeats() {
        let q = Quantity::compile(
            &decl("fixed_ms", "(prefill_seconds[slices=4] - prefill_seconds[slices=1]) / 384 * 1000"),
            &[],
        )
        .unwrap();
        assert_eq!(
            q.terms,
            vec![
                QuantityTerm::Metric { name: "prefill_seconds".into(), overrides: vec![("slices".into(), "4".into())] },
                QuantityTerm::Metric { name: "prefill_seconds".into(), overrides: vec![("slices".into(), "1".into())] },
            ]
        );
        // The study's section 2: (1.196 s - 0.584 s) / 384 extra collectives = 1.59 ms per call.
        assert!((q.value(&[1.196, 0.584]).unwrap() - 1.59375).abs() < 1e-9);
    }

    #[test]
    fn bare_names_fit_terms_and_earlier_quantities() {
        let speedup = Quantity::compile(&decl("speedup", "sequential_us / pipelined_us"), &[]).unwrap();
        assert_eq!(speedup.terms.len(), 2);
        assert_eq!(speedup.value(&[2.0, 1.0]), Some(2.0));
        let saved = Quantity::compile(&decl("saved", "1 - 1 / speedup"), std::slice::from_ref(&speedup)).unwrap();
        assert_eq!(saved.value(&[2.0, 1.0]), Some(0.5));
        let gbps = Quantity::compile(&decl("gbps", "1 / fit.per_unit / 1000"), &[]).unwrap();
        assert_eq!(gbps.terms, vec![QuantityTerm::FitPerUnit]);
        let impact = Quantity::compile(&decl("impact", "total_tps / total_tps[tbo=\"off\"] - 1"), &[]).unwrap();
        assert_eq!(impact.terms.len(), 2);
        // The bracketed reference is read first: term 0 is the baseline.
        assert!((impact.value(&[1.0, 1.169]).unwrap() - 0.169).abs() < 1e-12);
    }

    #[test]
    fn a_bad_formula_is_one_line_naming_its_part() {
        assert!(Quantity::compile(&decl("q", "a[slices]"), &[]).unwrap_err().contains("`a[slices]`"));
        assert!(Quantity::compile(&decl("q", "a[]"), &[]).unwrap_err().contains("empty"));
        assert!(Quantity::compile(&decl("q", "a +* 2"), &[]).unwrap_err().contains("invalid expression"));
        let earlier = Quantity::compile(&decl("s", "a / b"), &[]).unwrap();
        assert!(Quantity::compile(&decl("q", "s[x=1]"), &[earlier]).unwrap_err().contains("is a quantity"));
    }

    #[test]
    fn a_zero_divisor_gives_no_value() {
        let q = Quantity::compile(&decl("q", "a / b"), &[]).unwrap();
        assert_eq!(q.value(&[1.0, 0.0]), None);
    }
}
