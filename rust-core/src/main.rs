//! `capsched`: operator tools for the Rust capacity scheduler.
//!
//! `capsched check FILE` reads a capacity-scheduler.xml exactly as the ResourceManager
//! will, and prints the queue tree with configured and effective capacities, or every
//! problem found (exit status 1). Run it before `yarn rmadmin -refreshQueues`.
//!
//! `capsched place FILE --user U` says where the file's placement rules would put a
//! submission, and which rule decided.

use capsched::config::{ClusterSettings, SchedulerConfig};
use capsched::resource::Resource;
use std::process::ExitCode;

const USAGE: &str = "usage: capsched check FILE [--cluster-memory MB --cluster-vcores N]
                [--min-allocation MB,VCORES] [--max-allocation MB,VCORES]
       capsched place FILE --user USER [--groups G1,G2] [--queue QUEUE] [--app-name NAME]
       capsched simulate SCENARIO [--quiet]

check: reads FILE (a capacity-scheduler.xml) with the same code the ResourceManager uses
and prints the queue tree with configured and effective capacities, or every problem
found, then the placement rules in the order they are evaluated. Exit status: 0 valid,
1 invalid, 2 usage error.

place: evaluates FILE's placement rules (queue-mappings, the application-name rules or
the JSON mapping rules) for one submission, as the ResourceManager would: USER with
GROUPS (primary first, as the RM's group mapping lists them) submitting NAME to QUEUE
(none: the RM's 'default'). Prints rule by rule how the answer was reached, then the
queue, the rejection, or that the submitted queue stands. Exit status: 0 placed or
standing, 1 rejected or FILE invalid, 2 usage error.

simulate: runs a scenario file (a configuration, a cluster, events and expectations; see
docs/scenario-format.md) through the scheduler and prints the state after each step.
Exit status: 0 when every expectation holds, 1 otherwise.

Absolute capacities ([memory=...,vcores=...]) are shown against the cluster size given
(default 100 nodes x 10 GiB x 8 vcores). Allocation bounds default to YARN's
(1024 MiB/1 vcore minimum, 8192 MiB/4 vcores maximum); pass your yarn-site.xml values.";

fn main() -> ExitCode {
    // The command line logs to standard error, at CAPSCHED_LOG's level (warn by default);
    // inside a ResourceManager the core logs through the RM's loggers instead.
    env_logger::Builder::from_env(env_logger::Env::default().filter_or("CAPSCHED_LOG", "warn")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("{msg}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let (command, rest) = args.split_first().ok_or("no command given")?;
    match command.as_str() {
        "check" => check(rest),
        "place" => place(rest),
        "simulate" => simulate(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command '{other}'")),
    }
}

fn parse_pair(s: &str) -> Result<Resource, String> {
    let (m, v) = s.split_once(',').ok_or_else(|| format!("'{s}' is not MB,VCORES"))?;
    Ok(Resource::new(
        m.trim().parse().map_err(|_| format!("'{m}' is not a number"))?,
        v.trim().parse().map_err(|_| format!("'{v}' is not a number"))?,
    ))
}

fn check(args: &[String]) -> Result<ExitCode, String> {
    let mut file = None;
    let mut cluster = Resource::new(100 * 10 * 1024, 100 * 8);
    let mut settings = ClusterSettings::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--cluster-memory" => cluster.memory_mb = value()?.parse().map_err(|_| "bad --cluster-memory")?,
            "--cluster-vcores" => cluster.vcores = value()?.parse().map_err(|_| "bad --cluster-vcores")?,
            "--min-allocation" => settings.minimum_allocation = parse_pair(value()?)?,
            "--max-allocation" => settings.maximum_allocation = parse_pair(value()?)?,
            f if file.is_none() && !f.starts_with("--") => file = Some(f.to_string()),
            other => return Err(format!("unexpected argument '{other}'")),
        }
    }
    let file = file.ok_or("check needs a FILE")?;
    let bytes = std::fs::read(&file).map_err(|e| format!("cannot read {file}: {e}"))?;
    match SchedulerConfig::from_xml(&bytes, &file, settings) {
        Ok(config) => {
            print!("{}", capsched::report::describe_tree(&config, cluster));
            print!("{}", describe_rules(&config));
            println!("{file}: valid ({} queues)", config.queues.len());
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            eprintln!("{file}: invalid\n{errors}");
            Ok(ExitCode::from(1))
        }
    }
}

/// The placement rules in evaluation order, and when they apply.
fn describe_rules(config: &SchedulerConfig) -> String {
    let placement = &config.global.placement;
    if placement.rules.is_empty() {
        return String::new();
    }
    let when = if placement.override_specified {
        "every submission (queue-mappings-override.enable)"
    } else {
        "submissions that name no queue"
    };
    let mut out = format!("placement rules, first decision wins, for {when}:\n");
    for (i, rule) in placement.rules.iter().enumerate() {
        out.push_str(&format!("  {:>2}. {rule}  ({})\n", i + 1, rule.key));
    }
    out
}

fn place(args: &[String]) -> Result<ExitCode, String> {
    use capsched::config::mapping::ConfiguredQueues;
    use capsched::policy::mapping::{self, Placement, Submission, DEFAULT_QUEUE_NAME};
    let (mut file, mut user, mut groups, mut queue, mut app) = (None, None, Vec::new(), None, String::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--user" => user = Some(value()?),
            "--groups" => {
                groups = value()?.split(',').map(str::trim).filter(|g| !g.is_empty()).map(String::from).collect()
            }
            "--queue" => queue = Some(value()?),
            "--app-name" => app = value()?,
            f if file.is_none() && !f.starts_with("--") => file = Some(f.to_string()),
            other => return Err(format!("unexpected argument '{other}'")),
        }
    }
    let file = file.ok_or("place needs a FILE")?;
    let user = user.ok_or("place needs --user")?;
    let queue = queue.unwrap_or_else(|| DEFAULT_QUEUE_NAME.to_string());
    let bytes = std::fs::read(&file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let config = match SchedulerConfig::from_xml(&bytes, &file, ClusterSettings::default()) {
        Ok(config) => config,
        Err(errors) => {
            eprintln!("{file}: invalid\n{errors}");
            return Ok(ExitCode::from(1));
        }
    };
    let submission =
        Submission { user: &user, groups: &groups, queue: &queue, application_name: &app, recovery: false };
    let decision = mapping::place(&config.global.placement, &ConfiguredQueues::new(&config.queues), &submission);
    for line in &decision.trace {
        println!("  {line}");
    }
    match decision.placement {
        Placement::Placed { queue, rule } => {
            println!("placed in {queue} by rule {}", rule + 1);
            Ok(ExitCode::SUCCESS)
        }
        Placement::Rejected { rule } => {
            println!("rejected by rule {}: the submitter is told \"{}\"", rule + 1, mapping::REJECTED_MESSAGE);
            Ok(ExitCode::from(1))
        }
        Placement::Unplaced => {
            println!("not placed: the application goes to the queue it names, '{queue}'");
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn simulate(args: &[String]) -> Result<ExitCode, String> {
    let file = args.iter().find(|a| !a.starts_with("--")).ok_or("simulate needs a SCENARIO file")?;
    let quiet = args.iter().any(|a| a == "--quiet");
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let base = std::path::Path::new(file).parent().unwrap_or(std::path::Path::new("."));
    let scenario = match capsched::scenario::Scenario::parse(&text, base) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{file}: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut runner = match capsched::scenario::Runner::new(&scenario) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{file}: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    for (line, step) in &scenario.steps {
        match runner.step(*line, step) {
            Ok(what) if !quiet => println!("{line:>4}  {what:<60} | {}", runner.summary()),
            Ok(_) => {}
            Err(e) => {
                eprintln!("{file}: {e}");
                return Ok(ExitCode::from(1));
            }
        }
    }
    println!("{file}: every expectation holds");
    Ok(ExitCode::SUCCESS)
}
