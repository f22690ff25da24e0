//! Checks of `[[run.service]]` at load: unique names, `port = "auto"` at most once, and every
//! `process = ...` on a metric naming the client or a declared service.

use super::param_value::Param;
use super::ready_decl::ReadyRule;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::{MetricsDecl, RunDecl, ServiceDecl, AUTO_PORT, PORT_NAME};

/// The name `process = ...` gives the run's main process.
pub const CLIENT_PROCESS: &str = "client";

/// `(key, template)` of every templated text of the services, for the template-variable check.
pub fn service_templates(services: &[ServiceDecl]) -> impl Iterator<Item = (String, &str)> {
    services.iter().enumerate().flat_map(|(i, service)| {
        let at = format!("run.service[{i}]");
        let program = std::iter::once((format!("{at}.program"), service.program.text()));
        let args =
            service.args.iter().enumerate().map(move |(j, arg)| (format!("run.service[{i}].args[{j}]"), arg.text()));
        let env = service.env.iter().map(move |(name, text)| (format!("run.service[{i}].env.{name}"), text.text()));
        let ready = match &service.ready.rule {
            ReadyRule::Tcp(address) => Some((format!("run.service[{i}].ready.tcp"), address.text())),
            ReadyRule::Http(url) => Some((format!("run.service[{i}].ready.http"), url.text())),
            ReadyRule::Log(_) => None,
        };
        program.chain(args).chain(env).chain(ready)
    })
}

/// `has_pre_run`: the engine profile runs commands before each run, which a shared instance would skip.
pub fn services(source: &SourceFile, run: &RunDecl, params: &[Param], has_pre_run: bool) -> Result<(), SpecError> {
    let mut auto_port: Option<usize> = None;
    for (index, service) in run.service.iter().enumerate() {
        let at = |key: &str| format!("run.service[{index}]{key}");
        let valid_name = !service.name.is_empty()
            && service.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && service.name != CLIENT_PROCESS;
        if !valid_name {
            let message =
                format!("`{}` is not a service name: letters, digits, `_` and `-`, not `client`", service.name);
            return Err(source.error_at(&at(".name"), message));
        }
        if run.service[..index].iter().any(|earlier| earlier.name == service.name) {
            return Err(source.error_at(&at(".name"), format!("a second service named `{}`", service.name)));
        }
        if let Some(port) = &service.port {
            if port != AUTO_PORT {
                return Err(source.error_at(&at(".port"), format!("`{port}`: the only value is \"{AUTO_PORT}\"")));
            }
            if let Some(earlier) = auto_port.replace(index) {
                let message =
                    format!("run.service[{earlier}] already takes `{{{{{PORT_NAME}}}}}`: one automatic port per run");
                return Err(source.error_at(&at(".port"), message));
            }
            if params.iter().any(|param| param.name == PORT_NAME) {
                let message = format!("the parameter `{PORT_NAME}` would be shadowed by the automatic port");
                return Err(source.error_at(&at(".port"), message));
            }
        }
        let reused = &service.reuse_across;
        if let Some(name) = reused.iter().find(|name| !params.iter().any(|param| param.name == **name)) {
            return Err(source.error_at(&at(".reuse_across"), format!("unknown parameter `{name}` (not in [params])")));
        }
        if has_pre_run && !reused.is_empty() {
            let message = "the engine profile's `pre_run` runs before each run's services, so they cannot be shared";
            return Err(source.error_at(&at(".reuse_across"), message));
        }
    }
    Ok(())
}

/// Every `process = ...` on a metric names the client or a declared service.
pub fn metric_processes(source: &SourceFile, metrics: &MetricsDecl, run: &RunDecl) -> Result<(), SpecError> {
    let regex = metrics.regex.iter().map(|(name, decl)| (format!("metrics.regex.{name}.process"), &decl.process));
    let profile = metrics.profile.iter().map(|profile| ("metrics.profile.process".to_string(), &profile.process));
    let result = std::iter::once(("metrics.result_process".to_string(), &metrics.result_process));
    for (key, process) in regex.chain(profile).chain(result) {
        let Some(process) = process else { continue };
        if process != CLIENT_PROCESS && !run.service.iter().any(|service| service.name == *process) {
            let names: Vec<&str> =
                std::iter::once(CLIENT_PROCESS).chain(run.service.iter().map(|s| s.name.as_str())).collect();
            return Err(source.error_at(&key, format!("unknown process `{process}` (one of {})", names.join(", "))));
        }
    }
    Ok(())
}
