//! The one handlebars setup every stage renders with: strict (an unknown variable is an error) and no
//! HTML escaping (argv, env values and C++ sources are not HTML: `std::vector<float>` must survive).
//! A template is a `Template`, compiled once: when its declaration is read, or (a kernel template file,
//! a template derived from a source) when the ablation that renders it is set up.

use std::fmt;
use std::sync::LazyLock;

use handlebars::{Handlebars, RenderContext, Renderable};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a template did not render: the handlebars message, which names the variable and the line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(String);

/// The one strict, non-escaping registry every compiled `Template` renders with (it holds no templates
/// of its own: each `Template` is compiled once and rendered against it).
static SETTINGS: LazyLock<Handlebars<'static>> = LazyLock::new(|| {
    let mut registry = Handlebars::new();
    registry.set_strict_mode(true);
    registry.register_escape_fn(handlebars::no_escape);
    registry
});

/// A declared template (an argv element, an env value, a path), compiled once when read and written
/// back as its text.
#[derive(Debug, Clone)]
pub struct Template {
    text: String,
    /// `None` for a text without `{{`, which renders as itself.
    compiled: Option<handlebars::Template>,
}

impl Template {
    /// Compiles `text`; a syntax error says what and where, on one line, not as handlebars' excerpt of the
    /// whole template located in `"Unnamed"`.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let compiled = text.contains("{{").then(|| handlebars::Template::compile(text)).transpose();
        Ok(Template { text: text.to_string(), compiled: compiled.map_err(|error| syntax_error(&error))? })
    }

    /// A text that renders as itself, braces and all (a default argv element).
    pub fn literal(text: &str) -> Template {
        Template { text: text.to_string(), compiled: None }
    }

    /// The template as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Renders it once against `context` (see `Renderer` for several templates over one context).
    pub fn render(&self, context: &impl Serialize) -> Result<String, TemplateError> {
        match self.compiled {
            None => Ok(self.text.clone()),
            Some(_) => Renderer::new(context)?.render(self),
        }
    }
}

impl PartialEq for Template {
    fn eq(&self, other: &Template) -> bool {
        self.text == other.text
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Template {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Template {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Template, D::Error> {
        let text = String::deserialize(deserializer)?;
        Template::parse(&text).map_err(|error| serde::de::Error::custom(format!("bad template `{text}`: {error}")))
    }
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

    /// Renders a declared template in strict mode without escaping.
    pub fn render(&self, template: &Template) -> Result<String, TemplateError> {
        let Some(compiled) = &template.compiled else { return Ok(template.text.clone()) };
        compiled.renders(&SETTINGS, &self.context, &mut RenderContext::new(None)).map_err(render_error)
    }
}

fn render_error(error: handlebars::RenderError) -> TemplateError {
    match error.reason() {
        handlebars::RenderErrorReason::MissingVariable(Some(name)) => {
            TemplateError(format!("unknown template variable `{name}`"))
        }
        _ => TemplateError(one_line(&error.to_string())),
    }
}

fn syntax_error(error: &handlebars::TemplateError) -> TemplateError {
    let reason = match error.reason() {
        handlebars::TemplateErrorReason::InvalidSyntax(_) => "invalid handlebars syntax".to_string(),
        other => other.to_string(),
    };
    let at = error.pos().map_or(String::new(), |(line, column)| format!(" at line {line}, column {column}"));
    TemplateError(format!("{reason}{at}"))
}

/// Handlebars errors span several lines (with a source excerpt); the CLI wants one sentence.
fn one_line(message: &str) -> String {
    message.lines().map(str::trim).filter(|line| !line.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(text: &str, context: &serde_json::Value) -> Result<String, TemplateError> {
        Template::parse(text)?.render(context)
    }

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
