//! Threads and the calls that work on the calling thread's current device.

use super::*;
use gpulint_python::libraries::per_thread::{self, Work};

fn thread_started(e: &Effect) -> bool {
    matches!(e, Effect::ThreadStarted { .. })
}

fn current_device_used(e: &Effect) -> bool {
    matches!(e, Effect::CurrentDeviceUsed { .. })
}

/// The probes of a row that does `StartsThread`: started, its target runs between the thread's
/// start and end; pickle refuses it, as an `Unpicklable` row's object.
pub(crate) fn starts_thread(c: &Callee, target: Param, args: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let made = call(x, &[(target, "work"), (args, "('cuda:1',)")]);
    let started = Probe::new(
        "its target runs in the thread when started",
        program(c, &format!("{WORKERS}t = {made}\nt.start()\n")),
    )
    .has("ThreadStarted", thread_started)
    .has("the target's tensor on cuda:1", object(CUDA_1))
    .has("ThreadEnded", |e| matches!(e, Effect::ThreadEnded { .. }));
    let unstarted = Probe::new(
        "nothing runs before it is started",
        program(c, &format!("{WORKERS}t = {made}\n")),
    )
    .lacks("ThreadStarted", thread_started)
    .lacks("a tensor", any_object);
    let mut probes = vec![started, unstarted];
    probes.extend(super::python::unpicklable(c));
    probes
}

/// Every current-device row reports its work where it names no device, and none where it does.
#[test]
fn every_current_device_row_reports_its_work() {
    let mut report = Report::default();
    for row in per_thread::ROWS {
        let c = callee(row.name);
        let x = c.expr.as_str();
        let probes = match row.work {
            Work::Call { device } => {
                let mut probes = vec![Probe::new(
                    "works on the current device",
                    program(&c, &format!("v = {x}()\n")),
                )
                .has("CurrentDeviceUsed", current_device_used)];
                if let Some(p) = device {
                    probes.push(
                        Probe::new(
                            "a device named is not the current one",
                            program(&c, &format!("v = {}\n", call(x, &[(p, "'cuda:1'")]))),
                        )
                        .lacks("CurrentDeviceUsed", current_device_used),
                    );
                }
                probes
            }
            Work::PinsWhenIterated { flag } => {
                let each = |on: &str| {
                    let made = call(x, &[(Param::pos(0, "dataset"), "[1, 2]"), (flag, on)]);
                    program(&c, &format!("for b in {made}:\n    print(b)\n"))
                };
                vec![
                    Probe::new("iterated, it pins through the current device", each("True"))
                        .has("CurrentDeviceUsed", current_device_used),
                    Probe::new("without the flag, it pins nothing", each("False"))
                        .lacks("CurrentDeviceUsed", current_device_used),
                ]
            }
        };
        report.row(row.name, Ok(probes));
    }
    report.assert("current-device rows");
}
