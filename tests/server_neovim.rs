//! README's Neovim snippets, tried in headless Neovim: each snippet the installed Neovim can run is
//! the whole `init.lua`; a script opens a Python file with a finding, waits for it, types the fix
//! and waits for it to clear, then opens a notebook and a Rust file and waits for theirs. Skipped,
//! with the reason, where Neovim is not installed (`GPULINT_TEST_NVIM` names another binary).

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Waits in the script: a guard against a hang, never a measure.
const SCRIPT: &str = r#"
local out = {}
local function wait_for(buf, wanted)
  return vim.wait(60000, function() return wanted(#vim.diagnostic.get(buf)) end, 20)
end
local function open(name)
  vim.cmd("edit " .. vim.fn.fnameescape(name))
  local buf = vim.api.nvim_get_current_buf()
  if not wait_for(buf, function(n) return n > 0 end) then
    table.insert(out, name .. " no diagnostic")
    return buf, nil
  end
  local d = vim.diagnostic.get(buf)[1]
  table.insert(out, string.format("%s %s %s %d", name, d.source, d.code, d.lnum + 1))
  return buf, d
end
local buf, d = open("train.py")
if d then
  local line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1]
  local fixed = line:gsub("num_workers=2%)", 'num_workers=2, multiprocessing_context="spawn")')
  vim.api.nvim_buf_set_lines(buf, d.lnum, d.lnum + 1, false, { fixed })
  table.insert(out, wait_for(buf, function(n) return n == 0 end) and "cleared" or "not cleared")
end
open("explore.ipynb")
open("fork.rs")
vim.fn.writefile(out, "result.txt")
vim.cmd("qa!")
"#;

const TRAIN: &str = "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n    loader = DataLoader(Frames(), num_workers=2)\n    for batch in loader:\n        model(batch)\n";

const NOTEBOOK: &str = r#"{"cells": [
 {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
  "source": "import torch\nfrom torch.utils.data import DataLoader\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n"},
 {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
  "source": "model = torch.nn.Linear(2, 2).cuda()\nloader = DataLoader(Frames(), num_workers=2)\n"}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
"#;

const FORK: &str = "use cudarc::driver::CudaContext;\nuse nix::unistd::{fork, ForkResult};\n\nfn main() {\n    let _parent = CudaContext::new(0).unwrap();\n    if let Ok(ForkResult::Child) = unsafe { fork() } {\n        let _child = CudaContext::new(0).unwrap();\n    }\n}\n";

/// The Neovim to run and its version, or why there is none.
fn neovim() -> Result<(String, (u32, u32)), String> {
    let program = std::env::var("GPULINT_TEST_NVIM").unwrap_or_else(|_| "nvim".to_string());
    let output = Command::new(&program)
        .arg("--version")
        .output()
        .map_err(|e| format!("`{program} --version` cannot run: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let version = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("NVIM v"))
        .ok_or_else(|| format!("`{program} --version` printed no version: {text}"))?;
    let mut parts = version.split(['.', '-']).map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => Ok((program, (major, minor))),
        _ => Err(format!("unreadable version {version}")),
    }
}

/// The `lua` block that follows the README line starting with `heading`.
fn snippet(readme: &str, heading: &str) -> String {
    let at = readme
        .lines()
        .position(|l| l.starts_with(heading))
        .unwrap_or_else(|| panic!("README names {heading}"));
    let mut lines = readme.lines().skip(at + 1).skip_while(|l| *l != "```lua");
    lines.next();
    let body: Vec<&str> = lines.take_while(|l| *l != "```").collect();
    assert!(!body.is_empty(), "a snippet after {heading}");
    body.join("\n") + "\n"
}

/// Runs the script with `init` as the whole configuration; what it wrote.
fn run(program: &str, init: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("project");
    fs::create_dir(&project).unwrap();
    fs::write(
        project.join("pyproject.toml"),
        "[project]\nname = \"demo\"\n",
    )
    .unwrap();
    fs::write(project.join("train.py"), TRAIN).unwrap();
    fs::write(project.join("explore.ipynb"), NOTEBOOK).unwrap();
    fs::write(project.join("fork.rs"), FORK).unwrap();
    fs::write(root.join("init.lua"), init).unwrap();
    fs::write(root.join("check.lua"), SCRIPT).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_gpulint")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // No user configuration, plugins or state: only the snippet.
    let home = root.join("home");
    let mut child = Command::new(program)
        .args(["--headless", "-i", "NONE", "-u"])
        .arg(root.join("init.lua"))
        .arg("-c")
        .arg(format!("luafile {}", root.join("check.lua").display()))
        .current_dir(&project)
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("Neovim runs");
    let deadline = Instant::now() + Duration::from_secs(240);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Neovim did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    fs::read_to_string(project.join("result.txt")).unwrap_or_default()
}

#[test]
fn the_readme_neovim_snippets_show_findings_and_clear_them() {
    let (program, version) = match neovim() {
        Ok(found) => found,
        Err(reason) => {
            eprintln!("skipped: no Neovim to try README's snippets in ({reason})");
            return;
        }
    };
    let readme = fs::read_to_string(common::root().join("README.md")).unwrap();
    // Each snippet, with the versions it is tried on: the first also where it still runs after
    // its own range (`vim.lsp.start_client` is deprecated from 0.11).
    let snippets = [
        ("Neovim 0.7 to 0.9", (0, 7), (0, 12)),
        ("Neovim 0.10", (0, 10), (0, 12)),
        ("Neovim 0.11 and later", (0, 11), (u32::MAX, 0)),
    ];
    let mut tried = 0;
    for (heading, from, before) in snippets {
        if version < from || version >= before {
            continue;
        }
        let result = run(&program, &snippet(&readme, heading));
        assert_eq!(
            result,
            "train.py gpulint GPU001 15\ncleared\nexplore.ipynb gpulint GPU001 5\nfork.rs gpulint GPU101 6\n",
            "{heading} on Neovim {version:?}"
        );
        tried += 1;
    }
    assert!(tried > 0, "no snippet for Neovim {version:?}");
    eprintln!("tried {tried} README snippets on Neovim {version:?}");
}
