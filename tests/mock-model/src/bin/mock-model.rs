//! `mock-model --scenario FILE.json [--port N]`: serves a scenario until killed. Prints one line,
//! `listening on http://127.0.0.1:PORT/v1`, when it is ready.

use std::io::Write;
use std::process::ExitCode;

use mock_model::{MockServer, Scenario};

const USAGE: &str = "usage: mock-model --scenario FILE.json [--port N]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mock-model: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut scenario = None;
    let mut port = 0u16;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scenario" => scenario = Some(args.next().ok_or("--scenario needs a file")?),
            "--port" => {
                let value = args.next().ok_or("--port needs a number")?;
                port = value.parse().map_err(|_| format!("not a port: {value}"))?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let scenario = Scenario::load(scenario.ok_or("--scenario is required")?)?;
    let server = MockServer::start_on(scenario, port).map_err(|e| e.to_string())?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on {}", server.base_url()).map_err(|e| e.to_string())?;
    stdout.flush().map_err(|e| e.to_string())?;
    loop {
        std::thread::park();
    }
}
