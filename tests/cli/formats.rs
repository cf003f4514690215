//! Output formats: concise, full, json, json-lines, github, gitlab, sarif, junit, and the details
//! each shows.

use super::*;

#[test]
fn concise_output_is_one_line_per_finding() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let out = stdout(&gpulint(
        &["check", "--output-format", "concise", "hazard.py"],
        dir.path(),
    ));
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("hazard.py:8:6: GPU001 "), "{out}");
    assert!(
        out.contains("Found 1 finding (1 error, 0 warnings) in 1 file."),
        "{out}"
    );
}

#[test]
fn json_output_has_ruffs_fields_and_related_locations() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let out = gpulint(
        &["check", "--output-format", "json", "hazard.py"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json[0];
    assert_eq!(d["code"], "GPU001");
    assert_eq!(d["name"], "fork-after-cuda-init");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["location"], serde_json::json!({"row": 8, "column": 6}));
    assert_eq!(
        d["end_location"],
        serde_json::json!({"row": 8, "column": 16})
    );
    assert_eq!(d["noqa_row"], 8);
    assert!(d["fix"].is_null());
    // No absolute address for the rule reference while Cargo.toml names no repository.
    assert!(d["url"].is_null(), "{d}");
    assert!(d["cell"].is_null(), "{d}");
    assert!(std::path::Path::new(d["filename"].as_str().unwrap()).is_absolute());
    let related = d["related"].as_array().unwrap();
    assert_eq!(related[0]["location"]["row"], 7, "the CUDA initialisation");
    assert_eq!(related[1]["location"]["row"], 5, "the child's CUDA use");
}

#[test]
fn json_lines_and_github_formats() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let lines = stdout(&gpulint(
        &["check", "--output-format", "json-lines", "hazard.py"],
        dir.path(),
    ));
    let objects: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["code"], "GPU001");
    assert_eq!(objects[0]["location"]["row"], 8);

    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "hazard.py"],
        dir.path(),
    ));
    assert!(
        github.starts_with(
            "::error file=hazard.py,line=8,col=6,endLine=8,endColumn=16,title=gpulint (GPU001 fork-after-cuda-init)::hazard.py:8:6: GPU001 "
        ),
        "{github}"
    );
    assert_eq!(github.lines().count(), 1, "no summary line: {github}");
}

#[test]
fn gitlab_fingerprints_survive_unrelated_edits() {
    let dir = tempfile::tempdir().unwrap();
    let report = |text: &str| -> Vec<(String, u64)> {
        fs::write(dir.path().join("hazard.py"), text).unwrap();
        let out = gpulint(
            &["check", "--output-format", "gitlab", "hazard.py"],
            dir.path(),
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| {
                assert_eq!(i["location"]["path"], "hazard.py");
                (
                    i["fingerprint"].as_str().unwrap().to_string(),
                    i["location"]["lines"]["begin"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let before = report(HAZARD);
    let after = report(&format!("# a new comment\n\n{HAZARD}"));
    assert_eq!(before.len(), 1);
    assert_eq!(before[0].0, after[0].0, "same finding, same fingerprint");
    assert_eq!(after[0].1, before[0].1 + 2, "it moved two lines down");
    let twice = report(&format!(
        "{HAZARD}{}",
        &HAZARD[HAZARD.find("with").unwrap()..]
    ));
    assert_eq!(twice.len(), 2);
    assert_ne!(
        twice[0].0, twice[1].0,
        "identical lines get distinct fingerprints"
    );
}

fn sarif_validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn assert_valid_sarif(validator: &jsonschema::Validator, sarif: &serde_json::Value) {
    let errors: Vec<String> = validator
        .iter_errors(sarif)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn sarif_output_validates_against_the_sarif_2_1_0_schema() {
    let dir = tempfile::tempdir().unwrap();
    write_cross_module_project(dir.path());
    let out = gpulint(&["check", "--output-format", "sarif", "."], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let validator = sarif_validator();
    assert_valid_sarif(&validator, &sarif);
    // The validator does reject what the schema forbids.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = serde_json::json!("fatal");
    assert!(!validator.is_valid(&broken));
    // So does it a helpUri that is not an absolute URI, and an unencoded space in a location.
    let mut broken = sarif.clone();
    broken["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] =
        serde_json::json!("docs/rules.md#gpu001");
    assert!(!validator.is_valid(&broken));
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"] = serde_json::json!("a b.py");
    assert!(!validator.is_valid(&broken));

    let run = &sarif["runs"][0];
    // Every rule gpulint knows is described, whatever their number.
    let known: serde_json::Value =
        serde_json::from_slice(&gpulint(&["rules", "--output-format", "json"], dir.path()).stdout)
            .expect("rules as JSON");
    let codes = |rules: &serde_json::Value, key: &str| -> Vec<String> {
        let mut codes: Vec<String> = rules
            .as_array()
            .expect("an array")
            .iter()
            .map(|r| r[key].as_str().expect("a code").to_string())
            .collect();
        codes.sort();
        codes
    };
    assert_eq!(
        codes(&run["tool"]["driver"]["rules"], "id"),
        codes(&known, "code")
    );
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "GPU001");
    assert_eq!(result["level"], "error");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "main.py");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(location["region"]["startLine"], 4);
    let related: Vec<&str> = result["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(related.contains(&"app/engine.py"), "{related:?}");
    assert!(result["partialFingerprints"]["gpulintFingerprint/v1"].is_string());
}

#[test]
fn sarif_uris_are_percent_encoded_and_files_outside_the_working_directory_absolute() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("repo");
    fs::create_dir_all(inner.join("my dir#2")).unwrap();
    fs::write(inner.join("my dir#2/a b.py"), HAZARD).unwrap();
    fs::write(dir.path().join("outside.py"), HAZARD).unwrap();
    let out = gpulint(
        &["check", "--output-format", "sarif", ".", "../outside.py"],
        &inner,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid_sarif(&sarif_validator(), &sarif);
    let run = &sarif["runs"][0];
    // gpulint counts columns in characters.
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let locations: Vec<&serde_json::Value> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["locations"][0]["physicalLocation"]["artifactLocation"])
        .collect();
    assert_eq!(locations.len(), 2);
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let outside = format!("file://{}/outside.py", base.display());
    assert_eq!(locations[0]["uri"], outside.as_str(), "{locations:?}");
    assert!(locations[0].get("uriBaseId").is_none(), "{locations:?}");
    assert_eq!(locations[1]["uri"], "my%20dir%232/a%20b.py");
    assert_eq!(locations[1]["uriBaseId"], "%SRCROOT%");
    let root_uri = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        root_uri.starts_with("file:///") && root_uri.ends_with("/repo/"),
        "{root_uri}"
    );
}

#[test]
fn no_format_prints_dot_slash_paths() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("pkg")).unwrap();
    fs::write(dir.path().join("pkg/hazard.py"), HAZARD).unwrap();
    for target in [".", "./pkg", "./pkg/hazard.py"] {
        for format in ["full", "concise", "github", "gitlab", "junit", "sarif"] {
            let text = stdout(&gpulint(
                &["check", "--output-format", format, target],
                dir.path(),
            ));
            assert!(text.contains("pkg/hazard.py"), "{format} {target}: {text}");
            assert!(!text.contains("./pkg"), "{format} {target}: {text}");
        }
    }
    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "."],
        dir.path(),
    ));
    assert!(
        github.starts_with("::error file=pkg/hazard.py,line=8,"),
        "{github}"
    );
}

#[test]
fn junit_output_is_well_formed_xml_with_a_case_per_finding() {
    use quick_xml::events::Event;
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("pkg")).unwrap();
    fs::write(dir.path().join("pkg/a.py"), HAZARD).unwrap();
    fs::write(dir.path().join("b.py"), HAZARD).unwrap();
    let xml = gpulint(&["check", "--output-format", "junit", "."], dir.path()).stdout;
    let mut reader = quick_xml::Reader::from_reader(xml.as_slice());
    let (mut suites, mut cases, mut failures) = (Vec::new(), 0, 0);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                b"testsuite" => {
                    let name = e.try_get_attribute("name").unwrap().unwrap();
                    suites.push(String::from_utf8(name.value.to_vec()).unwrap());
                }
                b"testcase" => cases += 1,
                b"failure" => failures += 1,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    assert_eq!(suites, ["b.py", "pkg/a.py"]);
    assert_eq!((cases, failures), (2, 2));

    fs::write(dir.path().join("b.py"), CLEAN).unwrap();
    fs::write(dir.path().join("pkg/a.py"), CLEAN).unwrap();
    let clean = gpulint(&["check", "--output-format", "junit", "."], dir.path());
    assert_eq!(clean.status.code(), Some(0));
    assert!(stdout(&clean).contains("<testcase name=\"No findings\"/>"));
}

/// The device bound right after the process group: one GPU015 (an info, with a safe fix).
const INFO: &str = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    local_rank = int(os.environ[\"LOCAL_RANK\"])\n    dist.init_process_group(backend=\"nccl\")\n    torch.cuda.set_device(local_rank)\n    x = torch.ones(2, device=\"cuda\")\n    dist.all_reduce(x)\n\n\nif __name__ == \"__main__\":\n    main()\n";

/// A corpus case whose GPU001 has an unsafe fix (a DataLoader started by spawn instead).
fn unsafe_fix_case() -> String {
    fs::read_to_string(root().join("corpus/gpu001/pos_collate_fn_cuda.py")).unwrap()
}

#[test]
fn concise_output_shows_each_findings_severity_and_fixable_mark() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    fs::write(dir.path().join("loader.py"), unsafe_fix_case()).unwrap();
    fs::write(dir.path().join("ranks.py"), INFO).unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("hazard.py:8:6: GPU001 [error] This pool starts"),
        "{text}"
    );
    // An unsafe fix is not marked: `--fix` alone does not apply it.
    assert!(lines[1].contains(": GPU001 [error] This "), "{text}");
    // A safe fix: `--fix` applies it.
    assert!(
        lines[2].starts_with("ranks.py:8:5: GPU015 [info] [*] "),
        "{text}"
    );
    // An info alone does not fail the run, and says so by its severity.
    let info = gpulint(
        &["check", "--output-format", "concise", "ranks.py"],
        dir.path(),
    );
    assert_eq!(info.status.code(), Some(0));
    assert!(
        stdout(&info).contains(" GPU015 [info] "),
        "{}",
        stdout(&info)
    );
    // An unsafe fix is marked once `--unsafe-fixes` makes `--fix` apply it.
    let unsafe_ = stdout(&gpulint(
        &[
            "check",
            "--output-format",
            "concise",
            "--unsafe-fixes",
            "loader.py",
        ],
        dir.path(),
    ));
    assert!(unsafe_.contains(" GPU001 [error] [*] "), "{unsafe_}");
}

#[test]
fn full_output_marks_fixable_findings_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("loader.py"), unsafe_fix_case()).unwrap();
    fs::write(dir.path().join("ranks.py"), INFO).unwrap();
    let text = stdout(&gpulint(&["check", "."], dir.path()));
    assert!(
        text.contains("[GPU015 set-device-after-process-group] Advice: [*] "),
        "{text}"
    );
    assert!(
        text.contains("[GPU001 fork-after-cuda-init] Error: This "),
        "the unsafe fix is not marked: {text}"
    );
    assert!(
        text.contains("[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"),
        "{text}"
    );
    let both = stdout(&gpulint(&["check", "--unsafe-fixes", "."], dir.path()));
    assert!(
        both.contains("[GPU001 fork-after-cuda-init] Error: [*] This "),
        "{both}"
    );
    assert!(
        both.contains("[*] 2 fixable with the `--fix` option.\n"),
        "{both}"
    );
    assert!(!both.contains("hidden fix"), "{both}");
}

#[test]
fn json_writes_cell_null_for_scripts_and_no_relative_url() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let out = gpulint(&["check", "--output-format", "json", "."], dir.path());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = json[0].as_object().unwrap();
    assert!(d["cell"].is_null(), "{d:?}");
    for related in d["related"].as_array().unwrap() {
        assert!(related.as_object().unwrap()["cell"].is_null(), "{related}");
    }
    // The rule's documentation as an absolute address, or null while the project names no
    // repository to link to: never a path that means nothing where the report is read.
    match &d["url"] {
        serde_json::Value::Null => {}
        serde_json::Value::String(url) => assert!(url.starts_with("https://"), "{url}"),
        other => panic!("url: {other}"),
    }
    // The same in JSON lines.
    let lines = gpulint(&["check", "--output-format", "json-lines", "."], dir.path());
    let first: serde_json::Value =
        serde_json::from_str(stdout(&lines).lines().next().unwrap()).unwrap();
    assert!(first.as_object().unwrap()["cell"].is_null(), "{first}");
}
