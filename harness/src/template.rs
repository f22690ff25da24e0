//! The one handlebars setup every stage renders with: strict (an unknown variable is an error) and no
//! HTML escaping (argv, env values and C++ sources are not HTML: `std::vector<float>` must survive).

use std::cell::RefCell;

use handlebars::Handlebars;
use serde::Serialize;

/// Why a template did not render: the handlebars message, which names the variable and the line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(String);

/// Builds the strict, non-escaping registry shared by every render.
fn registry() -> Handlebars<'static> {
    let mut registry = Handlebars::new();
    registry.set_strict_mode(true);
    registry.register_escape_fn(handlebars::no_escape);
    registry
}

thread_local! {
    /// Templates compiled once per thread, keyed by their text: a sweep renders the same few argv and
    /// env templates for every run (a 100,000-setting preflight renders each once per setting).
    static COMPILED: RefCell<Handlebars<'static>> = RefCell::new(registry());
}

/// Renders `template` against `context` in strict mode without escaping (see `Renderer`).
pub fn render(template: &str, context: &impl Serialize) -> Result<String, TemplateError> {
    if !template.contains("{{") {
        return Ok(template.to_string());
    }
    Renderer::new(context)?.render(template)
}

/// One context many templates render against (a run's argv and env): it is converted for handlebars once.
pub struct Renderer {
    context: handlebars::Context,
}

impl Renderer {
    pub fn new(context: &impl Serialize) -> Result<Renderer, TemplateError> {
        let context =
            handlebars::Context::wraps(context).map_err(|error| TemplateError(one_line(&error.to_string())))?;
        Ok(Renderer { context })
    }

    /// A renderer over a JSON context it takes over (no copy is made).
    pub fn of(context: serde_json::Value) -> Renderer {
        Renderer { context: handlebars::Context::from(context) }
    }

    /// Renders `template` in strict mode without escaping. Text without `{{` is returned as it is
    /// (handlebars would too), and a template is compiled once per thread.
    /// A syntax error is reported as `check_syntax` does (line and column, one line), not as handlebars'
    /// excerpt of the whole template located in `"Unnamed"`.
    pub fn render(&self, template: &str) -> Result<String, TemplateError> {
        if !template.contains("{{") {
            return Ok(template.to_string());
        }
        COMPILED.with(|compiled| {
            let mut compiled = compiled.borrow_mut();
            if !compiled.has_template(template) {
                check_syntax(template)?;
                compiled
                    .register_template_string(template, template)
                    .map_err(|error| TemplateError(one_line(&error.to_string())))?;
            }
            compiled.render_with_context(template, &self.context).map_err(|error| match error.reason() {
                handlebars::RenderErrorReason::MissingVariable(Some(name)) => {
                    TemplateError(format!("unknown template variable `{name}`"))
                }
                _ => TemplateError(one_line(&error.to_string())),
            })
        })
    }
}

/// Checks that `template` parses, without rendering it; the error says what and where, on one line.
pub fn check_syntax(template: &str) -> Result<(), TemplateError> {
    let Err(error) = handlebars::Template::compile(template) else { return Ok(()) };
    let reason = match error.reason() {
        handlebars::TemplateErrorReason::InvalidSyntax(_) => "invalid handlebars syntax".to_string(),
        other => other.to_string(),
    };
    let at = error.pos().map_or(String::new(), |(line, column)| format!(" at line {line}, column {column}"));
    Err(TemplateError(format!("{reason}{at}")))
}

/// Handlebars errors span several lines (with a source excerpt); the CLI wants one sentence.
fn one_line(message: &str) -> String {
    message.lines().map(str::trim).filter(|line| !line.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_variable_is_an_error_in_strict_mode() {
        let error = render("--rows {{rows}} {{colums}}", &json!({"rows": 512})).unwrap_err();
        assert_eq!(error.to_string(), "unknown template variable `colums`");
    }

    #[test]
    fn cpp_angle_brackets_are_not_html_escaped() {
        let text = render("std::vector<float> v; // {{n}} & more", &json!({"n": 1})).unwrap();
        assert_eq!(text, "std::vector<float> v; // 1 & more");
    }

    #[test]
    fn a_syntax_error_names_its_line_on_one_short_line() {
        let template = format!("{}{{{{#if x}}}}\nint a;\n", "int b;\n".repeat(88));
        let error = render(&template, &json!({"x": true})).unwrap_err().to_string();
        assert_eq!(error, "invalid handlebars syntax at line 91, column 1");
    }

    #[test]
    fn escaped_braces_stay_literal() {
        assert_eq!(render(r"int a[2] = \{{1, 2}};", &json!({})).unwrap(), "int a[2] = {{1, 2}};");
    }
}
