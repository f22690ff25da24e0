//! Renders a run's `[[run.service]]` entries into processes to start, and picks their automatic port.

use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::readiness::Readiness;
use super::run_commands::RankCommand;
use crate::declare::{ReadyRule, ServiceDecl, SourceFile, SpecError, AUTO_PORT, PORT_NAME};
use crate::template::Template;

/// Binds `port` into `params` when a service asks for `port = "auto"`: a loopback port free right now
/// (the kernel's pick for port 0), so parallel shards on one host do not clash.
pub fn bind_auto_port(
    sweep: &SourceFile,
    services: &[ServiceDecl],
    params: &mut Map<String, Value>,
) -> Result<(), SpecError> {
    let Some(index) = services.iter().position(|service| service.port.as_deref() == Some(AUTO_PORT)) else {
        return Ok(());
    };
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_err(|error| {
            sweep.error_at(&format!("run.service[{index}].port"), format!("no free loopback port: {error}"))
        })?
        .port();
    params.insert(PORT_NAME.into(), port.into());
    Ok(())
}

/// Each service rendered over the run's `context`, logging to `service-<name>.log` in the run directory.
pub fn service_commands(
    sweep: &SourceFile,
    services: &[ServiceDecl],
    context: &Value,
    run_dir: &Path,
) -> Result<Vec<ServiceCommand>, SpecError> {
    services
        .iter()
        .enumerate()
        .map(|(index, service)| {
            let render = |key: String, template: &Template| {
                template.render(context).map_err(|error| sweep.error_at(&key, error.to_string()))
            };
            let at = |key: &str| format!("run.service[{index}].{key}");
            let mut argv = vec![render(at("program"), &service.program)?];
            for (i, arg) in service.args.iter().enumerate() {
                argv.push(render(at(&format!("args[{i}]")), arg)?);
            }
            let env = service
                .env
                .iter()
                .map(|(name, value)| Ok((name.clone(), render(at(&format!("env.{name}")), value)?)))
                .collect::<Result<Vec<_>, SpecError>>()?;
            let ready = &service.ready;
            let readiness = match &ready.rule {
                ReadyRule::Log(pattern) => Readiness::Log(regex::Regex::clone(pattern)),
                ReadyRule::Tcp(address) => Readiness::Tcp(render(at("ready.tcp"), address)?),
                ReadyRule::Http(url) => Readiness::Http(render(at("ready.http"), url)?),
            };
            let log = run_dir.join(format!("service-{}.log", service.name));
            let command = RankCommand { rank: None, argv, env, log };
            Ok(ServiceCommand { name: service.name.clone(), command, readiness, within: ready.within })
        })
        .collect()
}

/// Started before a run's main process and stopped after it; its exit while the run goes on fails the run.
#[derive(Debug, Clone)]
pub struct ServiceCommand {
    pub name: String,
    pub command: RankCommand,
    pub readiness: Readiness,
    pub within: Duration,
}
