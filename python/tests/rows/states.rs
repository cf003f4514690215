//! Library settings a fresh interpreter starts without (`libraries::process_state`): each setter
//! set at run time is a write of that setting, each reader in a spawned child a read of it,
//! unless the reader is given the keyword that overrides the setting.

use super::*;
use gpulint_python::libraries::process_state::{StateRow, STATES};

fn program(row: &StateRow, reader: &str, keyword: &str) -> String {
    set_to(row, "torch.float64", reader, keyword)
}

fn set_to(row: &StateRow, value: &str, reader: &str, keyword: &str) -> String {
    format!(
        "import multiprocessing as mp\nimport torch\n\n\
         def task(i):\n    return {reader}(2{keyword})\n\n\
         if __name__ == \"__main__\":\n    {}({value})\n    \
         with mp.get_context(\"spawn\").Pool(2) as pool:\n        pool.map(task, range(2))\n",
        row.setter
    )
}

fn probes(row: &'static StateRow) -> Vec<Probe> {
    let state = row.state;
    let written = move |e: &Effect| matches!(e, Effect::GlobalWritten { global, .. } if global.setting && &*global.name == state);
    let read = move |e: &Effect| matches!(e, Effect::GlobalRead { global, .. } if global.setting && &*global.name == state);
    let mut out = Vec::new();
    for default in row.defaults {
        out.push(
            Probe::new(
                format!("set to the default `{default}`, nothing changes"),
                set_to(row, default, row.readers[0], ""),
            )
            .lacks("the setting written", written),
        );
    }
    for reader in row.readers {
        out.push(
            Probe::new(
                format!("`{reader}` reads the setting"),
                program(row, reader, ""),
            )
            .has("the setting written", written)
            .has("the setting read", read),
        );
        let keyword = format!(", {}=torch.float64", row.unless);
        out.push(
            Probe::new(
                format!("`{reader}` given `{}` does not", row.unless),
                program(row, reader, &keyword),
            )
            .lacks("the setting read", read),
        );
    }
    out
}

#[test]
fn every_process_setting_row_does_what_it_says() {
    let mut report = Report::default();
    for row in STATES {
        report.row(row.setter, Ok(probes(row)));
    }
    report.assert("process settings");
}
