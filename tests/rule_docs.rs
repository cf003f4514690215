//! Every "When it is not a bug" bullet in a rule's docs holds in code: the table below names, for
//! each bullet, a corpus case where the rule must stay silent, and the test runs gpulint on the
//! corpus to check that it does.

mod common;

use std::path::Path;

use common::*;

/// (rule, the first words of one of its "When it is not a bug" bullets, a corpus case where the
/// rule must not fire). A bullet may have several rows (one per case it names); every bullet of a
/// rule with rows needs at least one, and every row must match a bullet.
///
/// A case is a file under `corpus/`, or a folder under `corpus/projects/`. Usually a `neg_` case
/// (no finding at all); a bullet that sends the case to another rule ("that is GPU003, not this")
/// names a `pos_` case of that rule, where only the other rule fires.
///
/// To cover another rule, add
/// its rows here: the test checks only the rules that have rows, and prints the others.
#[rustfmt::skip]
const NOT_A_BUG: &[(&str, &str, &str)] = &[
    // GPU002 device-pinned-global
    ("GPU002", "The global stays on the CPU", "gpu002/neg_cpu_global_copied_per_worker.py"),
    ("GPU002", "The global stays on the CPU", "gpu002/neg_cpu_state_dict_global.py"),
    ("GPU002", "A lazy loader places it", "gpu002/neg_lazy_loader_current_device.py"),
    ("GPU002", "A lazy loader places it", "gpu002/neg_classmethod_cache_on_current_device.py"),
    ("GPU002", "Nothing selects a per-worker device", "gpu002/neg_global_cuda0_single_process.py"),
    // GPU003 process-group-before-set-device
    ("GPU003", "`set_device(local_rank)` (or", "gpu003/neg_set_device_before_init.py"),
    ("GPU003", "`set_device(local_rank)` (or", "gpu003/neg_accelerator_set_device_index.py"),
    ("GPU003", "`set_device(local_rank)` (or", "gpu003/neg_device_id_on_init.py"),
    ("GPU003", "`set_device(local_rank)` (or", "gpu003/neg_device_id_added_to_kwargs.py"),
    ("GPU003", "`set_device` follows", "gpu015/pos_set_device_right_after_init.py"),
    ("GPU003", "The backend is `gloo`", "gpu003/neg_gloo_cpu_tensors.py"),
    ("GPU003", "The launcher narrowed visibility", "gpu003/neg_visible_devices_narrowed.py"),
    ("GPU003", "The launcher narrowed visibility", "gpu003/neg_ray_actor_num_gpus.py"),
    ("GPU003", "The group has one process", "gpu003/neg_single_process_group.py"),
    ("GPU003", "The group has one process", "gpu003/neg_one_rank_world_from_environment.py"),
    ("GPU003", "The only collectives before", "gpu015/pos_gloo_broadcast_then_set_device.py"),
    ("GPU003", "The function that creates the group", "projects/neg_backend_bound_by_caller"),
    ("GPU003", "The function that creates the group", "projects/neg_group_bound_in_callee"),
    ("GPU003", "The function that creates the group", "gpu003/neg_accelerator_binds_before_group.py"),
    ("GPU003", "The function that creates the group", "gpu003/neg_training_arguments_before_group.py"),
    ("GPU003", "The function that creates the group", "projects/neg_lazy_global_accelerator"),
    ("GPU003", "The function that creates the group", "gpu003/neg_platform_object_binds.py"),
    ("GPU003", "The function that creates the group", "gpu003/neg_get_device_helper_binds.py"),
    ("GPU003", "`set_device(local_rank)` (or", "gpu003/neg_device_module_binds.py"),
    ("GPU003", "The device is never bound, but nothing runs", "gpu003/neg_every_tensor_names_its_gpu.py"),
    // GPU001 fork-after-cuda-init
    ("GPU001", "The child never touches CUDA", "gpu001/neg_dataloader_cpu_workers.py"),
    ("GPU001", "The child never touches CUDA", "gpu001/neg_pool_cpu_only_child.py"),
    ("GPU001", "A Celery worker whose tasks", "gpu001/neg_celery_task_lazy_cuda.py"),
    ("GPU001", "A Celery worker whose tasks", "gpu001/neg_celery_worker_process_init_model.py"),
    ("GPU001", "A Celery worker whose tasks", "projects/neg_gunicorn_without_preload"),
    ("GPU001", "A Celery worker whose tasks", "projects/neg_gunicorn_preload_post_fork_model"),
    ("GPU001", "The fork happens before", "gpu001/neg_pool_before_cuda_init.py"),
    ("GPU001", "The fork happens before", "gpu001/neg_process_started_before_init.py"),
    ("GPU001", "The child is started by `spawn`", "gpu001/neg_set_start_method_spawn.py"),
    ("GPU001", "The child is started by `spawn`", "gpu001/neg_spawn_context_process.py"),
    ("GPU001", "The child is started by `spawn`", "gpu001/neg_subprocess_after_cuda.py"),
    ("GPU001", "The child is started by `spawn`", "gpu001/neg_ray_tasks_after_cuda.py"),
    ("GPU001", "The child is started by `spawn`", "gpu001/neg_forkserver_clean_main.py"),
    ("GPU001", "The function that starts the child", "projects/neg_caller_sets_spawn_first"),
    ("GPU001", "The child is started inside a process", "gpu001/neg_spawned_controller_inherits_spawn.py"),
    ("GPU001", "Only `torch.cuda.device_count()`", "gpu001/neg_device_count_then_fork.py"),
    ("GPU001", "Only `torch.cuda.device_count()`", "gpu001/neg_nvml_check_before_is_available.py"),
    ("GPU001", "On macOS and Windows", "projects/neg_py314_forkserver_default"),
    // GPU007 cuda-visible-devices-after-init
    ("GPU007", "The write comes before", "gpu007/neg_device_count_then_narrow.py"),
    ("GPU007", "The write comes before", "gpu007/neg_worker_narrows_first.py"),
    ("GPU007", "The write comes before", "gpu007/neg_init_moved_under_guard.py"),
    ("GPU007", "The process writes it for", "gpu007/neg_parent_sets_env_for_spawned_children.py"),
    ("GPU007", "The process writes it for", "gpu007/neg_subprocess_gets_the_env.py"),
    ("GPU007", "The child was forked", "gpu001/pos_forked_child_narrows_visibility.py"),
    ("GPU007", "The write is on a branch", "gpu007/neg_narrow_branch_returns_before_use.py"),
    ("GPU007", "CUDA was initialised only", "gpu007/neg_init_path_returned_before_narrow.py"),
    ("GPU007", "The write selects no GPU", "gpu007/neg_block_hides_gpus_then_restores.py"),
    ("GPU007", "The write selects no GPU", "gpu007/neg_rocm_selection_copied.py"),
    ("GPU007", "The CUDA work after the write", "gpu007/neg_vllm_engine_process_inherits_selection.py"),
    // GPU008 global-rank-as-device
    ("GPU008", "The index is the rank on the node", "gpu008/neg_local_rank_env.py"),
    ("GPU008", "The index is the rank on the node", "gpu008/neg_spawn_index_as_device.py"),
    ("GPU008", "The global rank is reduced", "gpu008/neg_global_rank_modulo_device_count.py"),
    ("GPU008", "The global rank is reduced", "gpu008/neg_rank_modulo_gpus_per_node.py"),
    ("GPU008", "The index is accelerate's", "gpu008/neg_accelerate_local_process_index.py"),
    ("GPU008", "The job is launched on one machine", "gpu008/neg_self_launch_torchrun_one_node.py"),
    ("GPU008", "The job is launched on one machine", "gpu008/neg_python_m_run_standalone.py"),
    ("GPU008", "The processes are started by `mp.spawn`", "gpu008/neg_spawned_ranks_get_rank.py"),
    ("GPU008", "The rendezvous address", "gpu008/neg_loopback_rendezvous.py"),
    ("GPU008", "The rendezvous address", "gpu008/neg_env_handed_to_process.py"),
    ("GPU008", "The rendezvous address", "gpu008/neg_env_dict_filled_key_by_key.py"),
    ("GPU008", "The code is a test suite's", "projects/neg_test_suite_global_rank"),
    ("GPU008", "The project says how it launches", "projects/neg_launch_script_one_node"),
    ("GPU008", "The project says how it launches", "gpu008/neg_usage_in_docstring_one_node.py"),
    // GPU009 load-without-map-location-per-rank
    ("GPU009", "The process narrowed", "gpu009/neg_worker_narrows_visibility_first.py"),
    ("GPU009", "The process narrowed", "gpu009/neg_parent_narrows_each_child.py"),
    ("GPU009", "One process", "gpu009/neg_single_process_script.py"),
    ("GPU009", "One process", "gpu009/neg_loader_workers_read_feature_files.py"),
    ("GPU009", "One rank loads", "gpu009/neg_rank_zero_inspects_checkpoint.py"),
    ("GPU009", "One rank loads", "gpu009/neg_horovod_leader_reloads_best.py"),
    ("GPU009", "The same file saves", "gpu009/neg_checkpoint_saved_from_cpu_model_here.py"),
    ("GPU009", "The same file saves", "gpu009/neg_saved_list_of_ints.py"),
    ("GPU009", "The same file saves", "gpu009/neg_rank_file_saved_from_host_copies.py"),
    ("GPU009", "The load is in another file", "projects/neg_loader_in_library_module"),
    // GPU010 implicit-device-in-worker
    ("GPU010", "The worker sets its device first", "gpu010/neg_set_device_first.py"),
    ("GPU010", "The parent or the worker narrowed", "gpu010/neg_visibility_narrowed_in_worker.py"),
    ("GPU010", "Only one process runs", "gpu010/neg_single_script_mixed_spellings.py"),
    ("GPU010", "A rank with an NCCL process group", "gpu003/pos_cuda_alloc_before_set_device.py"),
    ("GPU010", "DataLoader workers", "gpu010/neg_loader_workers_default_device.py"),
    ("GPU010", "The only device named besides", "gpu010/neg_device_read_back_from_tensor.py"),
    ("GPU010", "The only device named besides", "gpu010/neg_device_read_back_from_model.py"),
    ("GPU010", "The only device named besides", "gpu010/neg_device_kind_from_mesh.py"),
    ("GPU010", "The GPU of its own and the bare", "gpu010/neg_choice_and_bare_placement_on_separate_branches.py"),
    ("GPU010", "The thread sets its device itself", "gpu010/neg_thread_sets_its_own_device.py"),
    ("GPU010", "The thread names the device", "gpu010/neg_thread_names_its_device.py"),
    ("GPU010", "The process never set a device", "gpu010/neg_thread_in_single_gpu_script.py"),
    ("GPU010", "The thread does no CUDA work", "gpu010/neg_thread_does_host_work.py"),
    ("GPU010", "The thread ran before the process", "gpu010/neg_thread_started_before_binding.py"),
    // GPU004 spawn-without-main-guard
    ("GPU004", "The creation is under", "gpu004/neg_spawn_under_main_guard.py"),
    ("GPU004", "The creation is under", "gpu004/neg_main_function_called_under_guard.py"),
    ("GPU004", "The start method is fork", "gpu004/neg_fork_context_at_module_level.py"),
    ("GPU004", "`set_start_method(..., force=True)`", "gpu004/neg_set_start_method_forced_at_module_level.py"),
    ("GPU004", "`set_start_method(..., force=True)`", "gpu004/neg_set_start_method_in_try.py"),
    ("GPU004", "Module-level code that creates no process", "gpu004/neg_process_creation_only_in_functions.py"),
    // GPU005 start-method-already-fixed
    ("GPU005", "The first call in the process", "gpu005/neg_set_first_then_queue.py"),
    ("GPU005", "A call in a function run from outside", "gpu005/neg_console_entry_apart_from_main_block.py"),
    ("GPU005", "`get_start_method(allow_none=True)`", "gpu005/neg_allow_none_query.py"),
    ("GPU005", "`get_start_method(allow_none=True)`", "gpu005/neg_guarded_set_after_a_queue.py"),
    ("GPU005", "`set_start_method(..., force=True)` when nothing", "gpu005/neg_forced_after_query.py"),
    ("GPU005", "`set_start_method(m, force=True)` where `m`", "gpu005/neg_forced_spawn_over_spawn.py"),
    ("GPU005", "A lock, queue or event made with the old method", "gpu005/neg_module_lock_never_reaches_a_child.py"),
    ("GPU005", "A call inside a `try`", "gpu005/neg_second_call_in_try.py"),
    ("GPU005", "An explicit context", "gpu005/neg_explicit_context_queue.py"),
    ("GPU005", "A module-level call that spawned children", "gpu004/pos_set_start_method_at_module_level.py"),
    // GPU006 unpicklable-spawn-callable
    ("GPU006", "The child is forked", "gpu006/neg_closure_target_under_fork.py"),
    ("GPU006", "Module-level functions", "gpu006/neg_partial_of_module_function_spawn.py"),
    ("GPU006", "Module-level functions", "gpu006/neg_bound_method_of_plain_object_spawn.py"),
    ("GPU006", "Module-level functions", "gpu006/neg_callable_instance_collate_spawn.py"),
    ("GPU006", "A class that defines `__getstate__`", "gpu006/neg_getstate_leaves_lock_behind.py"),
    ("GPU006", "A `DataLoader` with `num_workers=0`", "gpu006/neg_no_workers_lambda_collate.py"),
    ("GPU006", "`datasets`' `map(num_proc=...)`", "gpu006/neg_dataset_map_lambda_dill.py"),
    ("GPU006", "`datasets`' `map(num_proc=...)`", "gpu006/neg_multiprocess_pool_lambda.py"),
    // GPU011 cuda-tensor-across-processes
    ("GPU011", "The tensor goes to the CPU first", "gpu011/neg_manager_dict_cpu_results.py"),
    ("GPU011", "The tensor goes to the CPU first", "gpu011/neg_pool_worker_puts_numpy_embeddings.py"),
    ("GPU011", "What is sent is a plain Python value", "gpu011/neg_worker_puts_python_values.py"),
    ("GPU011", "The sender keeps running", "gpu011/neg_producer_waits_until_consumed.py"),
    ("GPU011", "The sender keeps running", "gpu011/neg_worker_serves_until_sentinel.py"),
    ("GPU011", "The main process sends", "gpu011/neg_main_process_feeds_workers.py"),
    ("GPU011", "The main process sends", "gpu011/neg_pool_worker_puts_cuda_tensor.py"),
    ("GPU011", "A CUDA tensor or model passed as an argument", "gpu011/neg_cuda_tensor_as_spawn_argument.py"),
    ("GPU011", "CuPy and JAX arrays", "gpu011/neg_cupy_array_through_queue.py"),
    ("GPU011", "CuPy and JAX arrays", "gpu011/neg_jax_array_through_queue.py"),
    // GPU012 start-method-wrong-layer
    ("GPU012", "The child does not use CUDA", "gpu012/neg_wrong_layer_but_cpu_only_map.py"),
    ("GPU012", "The child does not use CUDA", "gpu012/neg_map_runs_before_cuda.py"),
    ("GPU012", "The start method is also set", "gpu012/neg_both_packages_set_to_spawn.py"),
    ("GPU012", "The start method is also set", "gpu012/neg_spawn_on_multiprocess_for_map.py"),
    ("GPU012", "The start method is also set", "gpu012/neg_pool_takes_own_spawn_context.py"),
    ("GPU012", "The call on the other package asks for `fork`", "projects/pos_fork_asked_on_other_layer"),
    // GPU013 spawn-reads-parent-mutated-global
    ("GPU013", "The child is forked", "gpu013/neg_flag_inherited_by_fork.py"),
    ("GPU013", "The global is assigned at module level", "gpu013/neg_module_level_value_spawn.py"),
    ("GPU013", "The global is assigned at module level", "gpu013/neg_class_attribute_refreshed_from_environment.py"),
    ("GPU013", "The value is passed to the child", "gpu013/neg_flag_passed_in_task_arguments.py"),
    ("GPU013", "The value is passed to the child", "gpu013/neg_pool_initializer_sets_global.py"),
    ("GPU013", "The value is passed to the child", "gpu013/neg_target_sets_global_before_reading.py"),
    ("GPU013", "The reading function writes the global", "gpu013/neg_lazy_model_built_by_reader.py"),
    ("GPU013", "The reading function writes the global", "gpu013/neg_memo_written_by_called_setup.py"),
    ("GPU013", "The reading function writes the global", "gpu013/neg_lazy_singleton_left_as_built.py"),
    ("GPU013", "The child is forked", "gpu013/neg_class_attribute_changed_before_fork.py"),
    ("GPU013", "The object is handed to the child", "gpu013/neg_settings_object_handed_to_task.py"),
    ("GPU013", "The library setting is set", "gpu013/neg_default_dtype_set_by_initializer.py"),
    ("GPU013", "The library setting is set", "gpu013/neg_default_dtype_set_at_import.py"),
    ("GPU013", "The library setting is set", "gpu013/neg_default_dtype_explicit_in_task.py"),
    // GPU014 fork-after-threadpool
    ("GPU014", "The child limits the pool to one thread", "gpu014/neg_initializer_one_thread.py"),
    ("GPU014", "The child limits the pool to one thread", "gpu014/neg_dataloader_workers_after_cpu_matmul.py"),
    ("GPU014", "The child is started by spawn", "gpu014/neg_spawn_context_after_matmul.py"),
    ("GPU014", "The parent's element-wise work", "gpu014/neg_small_elementwise_then_process.py"),
    ("GPU014", "The parent's element-wise work", "gpu014/neg_small_state_dict_then_process.py"),
    ("GPU014", "The parent's element-wise work", "gpu014/neg_small_transform_module_then_process.py"),
    ("GPU014", "The parent ran no such operation", "gpu014/neg_pool_before_cpu_work.py"),
    ("GPU014", "The parent ran no such operation", "gpu014/neg_cuda_products_cpu_children.py"),
    ("GPU014", "gpulint only knows tensors it saw created", "gpu014/neg_layer_moved_to_cuda_before_fork.py"),
    ("GPU014", "gpulint only knows tensors it saw created", "gpu014/neg_unknown_size_elementwise_then_process.py"),
    // GPU015 set-device-after-process-group
    ("GPU015", "The device is bound before", "gpu015/neg_bind_then_group_in_setup_class.py"),
    ("GPU015", "The device is bound before", "gpu015/neg_device_id_names_the_device_then_set_device.py"),
    ("GPU015", "The backend is `gloo` or `mpi`", "gpu015/neg_gloo_group_then_set_device.py"),
    ("GPU015", "The launcher narrowed visibility", "gpu015/neg_narrowed_visibility_then_group.py"),
    ("GPU015", "The launcher narrowed visibility", "gpu015/neg_single_rank_then_set_device.py"),
    ("GPU015", "The launcher narrowed visibility", "gpu015/neg_ray_actor_group_in_init.py"),
    ("GPU015", "Something runs on the implicit device", "gpu003/pos_set_device_after_barrier.py"),
    ("GPU015", "Something runs on the implicit device", "gpu003/pos_never_set_device_barrier.py"),
    // GPU101 rust-fork-after-cuda-init
    ("GPU101", "The fork happens before any CUDA call", "gpu101/neg_fork_before_init.rs"),
    ("GPU101", "The child only does host work", "gpu101/neg_child_host_only.rs"),
    ("GPU101", "The child only does host work", "gpu101/neg_child_execs_after_fork.rs"),
    ("GPU101", "`std::process::Command` starts", "gpu101/neg_command_after_init.rs"),
    ("GPU101", "Probing calls that return an error", "gpu101/neg_child_probes_device_count.rs"),
    ("GPU101", "Probing calls that return an error", "gpu101/neg_child_checks_tch_is_available.rs"),
    // GPU102 rust-static-cuda-context
    ("GPU102", "The static holds one object per device", "gpu102/neg_context_per_ordinal_map.rs"),
    ("GPU102", "The static holds one object per device", "gpu102/neg_oncelock_one_device.rs"),
    ("GPU102", "The process picks its device once", "gpu102/neg_set_once_at_startup.rs"),
    ("GPU102", "The static is first read in the child", "gpu102/neg_lazy_first_read_in_child.rs"),
    ("GPU102", "A `thread_local!` filled on another thread", "gpu101/pos_thread_local_context_opened_on_worker_thread.rs"),
    // GPU103 rust-rank-as-device-ordinal
    ("GPU103", "The ordinal is the rank on the node", "gpu103/neg_local_rank.rs"),
    ("GPU103", "The ordinal is the rank on the node", "gpu103/neg_slurm_localid_candle_device.rs"),
    ("GPU103", "The ordinal is the rank on the node", "gpu103/neg_ompi_local_rank.rs"),
    ("GPU103", "The rank is reduced to this machine's GPUs", "gpu103/neg_rank_modulo_device_count.rs"),
    ("GPU103", "The rank is used for what is unique", "gpu103/neg_rank_for_shard_only.rs"),
];

/// The bullets of a rule's "When it is not a bug" section, each on one line (its continuation
/// lines joined, whitespace collapsed). Paragraphs after the list are not bullets.
fn not_a_bug_bullets(docs: &str) -> Vec<String> {
    let section = docs
        .split("## When it is not a bug")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_default();
    let mut bullets: Vec<String> = Vec::new();
    let mut in_bullet = false;
    for line in section.lines() {
        if let Some(text) = line.strip_prefix("- ") {
            bullets.push(text.trim().to_string());
            in_bullet = true;
        } else if in_bullet && line.starts_with("  ") && !line.trim().is_empty() {
            let last = bullets.last_mut().expect("a bullet");
            last.push(' ');
            last.push_str(line.trim());
        } else {
            in_bullet = false;
        }
    }
    bullets
}

#[test]
fn every_not_a_bug_bullet_has_a_silent_corpus_case() {
    let corpus = root().join("corpus");
    let mut problems = Vec::new();
    let mut without_rows = Vec::new();
    for rule in gpulint_rules::RULES {
        let bullets = not_a_bug_bullets(rule.docs);
        let rows: Vec<_> = NOT_A_BUG.iter().filter(|r| r.0 == rule.code).collect();
        if rows.is_empty() {
            if !bullets.is_empty() {
                without_rows.push(rule.code);
            }
            continue;
        }
        for bullet in &bullets {
            if !rows.iter().any(|r| bullet.starts_with(r.1)) {
                problems.push(format!("{}: no corpus case for \"{bullet}\"", rule.code));
            }
        }
        for (code, start, _) in &rows {
            if !bullets.iter().any(|b| b.starts_with(start)) {
                problems.push(format!("{code}: no bullet starts with \"{start}\""));
            }
        }
    }
    for (code, _, _) in NOT_A_BUG {
        if gpulint_rules::rule(code).is_none() {
            problems.push(format!("{code}: no such rule"));
        }
    }
    if !without_rows.is_empty() {
        eprintln!(
            "rules whose \"When it is not a bug\" bullets have no rows yet: {}",
            without_rows.join(", ")
        );
    }

    // The rule stays silent in each case (the other rules may fire in a `pos_` case).
    let found = found(&corpus);
    for (code, start, case) in NOT_A_BUG {
        let path = corpus.join(case);
        if !path.exists() {
            problems.push(format!("{code} \"{start}\": {case} does not exist"));
            continue;
        }
        let name = Path::new(case).file_name().unwrap().to_string_lossy();
        let folder = format!("{}/", code.to_ascii_lowercase());
        if !(name.starts_with("neg_") || name.starts_with("pos_") && !case.starts_with(&folder)) {
            problems.push(format!(
                "{code} \"{start}\": {case} is neither a neg_ case nor another rule's pos_ case"
            ));
        }
        let inside = |file: &str| {
            file == *case
                || file.starts_with(&format!("{case}/"))
                || file.starts_with(&format!("{case}:cell "))
        };
        for ((file, line), codes) in &found {
            let fires = codes.iter().any(|c| c.split('(').next() == Some(*code));
            if inside(file) && fires {
                problems.push(format!(
                    "{code} fires at {file}:{line}, where its docs say \"{start}...\" is not a bug"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn bullets_are_read_whole() {
    let docs =
        "## When it is not a bug\n- One,\n  two.\n- Three.\n\nA paragraph.\n\n## Example\n- x\n";
    assert_eq!(not_a_bug_bullets(docs), ["One, two.", "Three."]);
}
