use super::*;
use crate::testing::{at, facts_of, worker_end};

fn bind(start: u32, chooses: bool) -> Effect {
    Effect::DeviceBound {
        span: at(start),
        binding: Binding::Call,
        chooses,
    }
}

fn used(start: u32) -> Effect {
    Effect::CurrentDeviceUsed {
        span: at(start),
        what: "x".into(),
    }
}

fn thread(start: u32, body: &[Effect]) -> Vec<Effect> {
    let mut effects = vec![Effect::ThreadStarted { span: at(start) }];
    effects.extend_from_slice(body);
    effects.push(Effect::ThreadEnded { span: at(start) });
    effects
}

fn run(effects: &[Effect]) -> Vec<ThreadDeviceFact> {
    facts_of::<ThreadDevice>(effects, worker_end(true))
}

#[test]
fn a_thread_of_a_bound_process_working_on_the_current_device_is_reported() {
    let mut effects = vec![bind(1, true)];
    effects.extend(thread(3, &[used(5)]));
    let facts = run(&effects);
    assert_eq!(facts.len(), 1);
    assert_eq!(
        (facts[0].span, facts[0].thread, facts[0].binding),
        (at(5), at(3), at(1))
    );
}

#[test]
fn a_thread_that_binds_first_or_an_unbound_process_is_silent() {
    let mut own = vec![bind(1, true)];
    own.extend(thread(3, &[bind(4, true), used(5)]));
    assert!(run(&own).is_empty());
    assert!(run(&thread(3, &[used(5)])).is_empty());
    let mut constant = vec![bind(1, false)];
    constant.extend(thread(3, &[used(5)]));
    assert!(run(&constant).is_empty());
}

#[test]
fn a_thread_started_before_the_binding_or_work_outside_threads_is_silent() {
    let mut before = thread(3, &[used(5)]);
    before.push(bind(7, true));
    assert!(run(&before).is_empty());
    assert!(run(&[bind(1, true), used(5)]).is_empty());
}

#[test]
fn code_not_analysed_in_the_thread_may_have_bound_its_device() {
    let mut effects = vec![bind(1, true)];
    effects.extend(thread(
        3,
        &[Effect::NotFollowed { function: at(4) }, used(5)],
    ));
    assert!(run(&effects).is_empty());
}
