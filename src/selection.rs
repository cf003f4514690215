//! Which rules are reported, read as ruff reads `select`, `extend-select` and `ignore`: a
//! configuration file and the command line are layers over a default of every rule.

/// Whether `selector` (`ALL`, a code, or a code prefix such as `GPU00`) selects `code`.
pub fn selects(selector: &str, code: &str) -> bool {
    selector.eq_ignore_ascii_case("ALL")
        || code
            .get(..selector.len())
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(selector))
}

/// Whether `selector` selects any rule gpulint has.
pub fn known(selector: &str) -> bool {
    gpulint_rules::RULES
        .iter()
        .any(|r| selects(selector, r.code))
}

/// How specific a selector is: `ALL` least, then longer prefixes more.
fn specificity(selector: &str) -> usize {
    if selector.eq_ignore_ascii_case("ALL") {
        0
    } else {
        selector.len()
    }
}

/// One layer: a configuration file's keys, or the command line's flags.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
}

/// Whether `code` is reported after `layers`, in order. Within a layer the most specific selector
/// that matches decides, an ignore winning a tie; a layer with `select` replaces what the layers
/// before chose (an empty `select` with only `ignore` passes its ignores on to the next layer).
pub fn selected(layers: &[&Selection], code: &str) -> bool {
    let mut on = true;
    let mut carried: &[String] = &[];
    for layer in layers {
        let ignores = layer.ignore.iter().chain(carried.iter());
        let mut decision: Option<(usize, bool)> = None;
        let mut consider = |selector: &String, enable: bool| {
            if selects(selector, code) {
                let rank = specificity(selector);
                if decision.is_none_or(|(best, _)| rank > best || (rank == best && !enable)) {
                    decision = Some((rank, enable));
                }
            }
        };
        for s in layer.select.iter().flatten().chain(&layer.extend_select) {
            consider(s, true);
        }
        for s in ignores {
            consider(s, false);
        }
        carried = &[];
        match &layer.select {
            Some(select) => {
                on = decision.is_some_and(|(_, enable)| enable);
                if select.is_empty() && layer.extend_select.is_empty() {
                    carried = &layer.ignore;
                }
            }
            None => {
                if let Some((_, enable)) = decision {
                    on = enable;
                }
            }
        }
    }
    on
}

/// `--per-file-ignores` values: `GLOB:CODE`, comma-separated (ruff's form), where a bare code
/// after a comma joins the pattern before it: `tests/*.py:GPU001,GPU002`.
pub fn parse_file_ignores(values: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for value in values {
        let mut open = false;
        for item in value.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let code = match item.rsplit_once(':') {
                Some((glob, code)) => {
                    out.push((glob.to_string(), Vec::new()));
                    open = true;
                    code
                }
                None if open => item,
                None => {
                    return Err(format!(
                        "`{item}` is not GLOB:CODES (such as `tests/*.py:GPU001`)"
                    ))
                }
            };
            if !known(code) {
                return Err(format!("`{code}` in `{value}` selects no rule"));
            }
            if let Some((_, codes)) = out.last_mut() {
                codes.push(code.to_string());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(select: Option<&[&str]>, extend: &[&str], ignore: &[&str]) -> Selection {
        let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Selection {
            select: select.map(list),
            extend_select: list(extend),
            ignore: list(ignore),
        }
    }

    #[test]
    fn the_more_specific_selector_wins_within_a_layer() {
        let l = layer(Some(&["GPU001"]), &[], &["GPU0"]);
        assert!(selected(&[&l], "GPU001"));
        assert!(!selected(&[&l], "GPU002"));
        let l = layer(Some(&["GPU0"]), &[], &["GPU001"]);
        assert!(!selected(&[&l], "GPU001"));
        // A tie goes to the ignore.
        let l = layer(Some(&["GPU001"]), &[], &["GPU001"]);
        assert!(!selected(&[&l], "GPU001"));
    }

    #[test]
    fn a_later_select_replaces_earlier_layers_and_extend_select_adds() {
        let config = layer(None, &[], &["GPU002"]);
        assert!(!selected(&[&config], "GPU002"));
        assert!(selected(&[&config], "GPU001"), "the default is every rule");
        let cli = layer(Some(&["GPU00"]), &[], &[]);
        assert!(selected(&[&config, &cli], "GPU002"), "select resets");
        assert!(!selected(&[&config, &cli], "GPU015"));
        let config = layer(Some(&["GPU001"]), &[], &[]);
        let cli = layer(None, &["GPU015"], &[]);
        assert!(selected(&[&config, &cli], "GPU015"));
        assert!(selected(&[&config, &cli], "GPU001"));
        assert!(!selected(&[&config, &cli], "GPU002"));
        let cli = layer(None, &[], &["GPU001"]);
        assert!(!selected(&[&config, &cli], "GPU001"));
    }

    #[test]
    fn per_file_ignores_take_ruffs_form_and_a_list() {
        let parsed = parse_file_ignores(&["a/*.py:GPU001,GPU002,b.py:GPU0".to_string()]).unwrap();
        assert_eq!(
            parsed,
            vec![
                (
                    "a/*.py".to_string(),
                    vec!["GPU001".to_string(), "GPU002".to_string()]
                ),
                ("b.py".to_string(), vec!["GPU0".to_string()]),
            ]
        );
        assert!(parse_file_ignores(&["GPU001".to_string()]).is_err());
        assert!(parse_file_ignores(&["a.py:E501".to_string()]).is_err());
    }
}
