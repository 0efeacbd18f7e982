//! The `dslint` command line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use dslint::base::diagnostic::Severity;
use dslint::base::rule as registry;
use dslint::context::Context;
use dslint::files::root::ProjectRoot;
use dslint::files::stdio::{self, Stop};
use dslint::fix::engine::{self, FixOptions};
use dslint::model::facts::Facts;
use dslint::model::workspace::Workspace;
use dslint::output::{self, human};
use dslint::rules::context::Profile;
use dslint::rules::selector;

/// mimalloc: a run makes millions of small allocations (names, values,
/// messages) on several threads, where it is markedly faster than the
/// system allocator. Built with `no_thp`: on transparent huge pages the
/// kernel's zeroing of 2 MiB pages was half of a 10k-file check.
/// The `system-alloc` feature leaves it out, so that heaptrack (which
/// sees only the C library's `malloc`) can say who holds the memory.
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: the position of `purge_delay` in
/// the `mi_option_e` enum of the mimalloc (v3) that `libmimalloc-sys`
/// 0.1.49 builds (`include/mimalloc.h`; its default is 1000 ms, which the
/// test below checks, so that a mimalloc whose enum moved fails it). The
/// `mimalloc` crate exposes the option API only through a feature that
/// pulls in another crate, for this one call.
#[cfg(not(feature = "system-alloc"))]
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

#[cfg(not(feature = "system-alloc"))]
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    fn mi_malloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_calloc(count: usize, size: usize) -> *mut std::ffi::c_void;
    fn mi_realloc(p: *mut std::ffi::c_void, size: usize) -> *mut std::ffi::c_void;
    fn mi_free(p: *mut std::ffi::c_void);
    #[cfg(test)]
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
}

/// Give freed pages back to the kernel 10 ms after they are freed rather
/// than a second: a check frees what each phase built (the element
/// properties once a pipeline's rules ran, the parsers' scratch), and with
/// mimalloc's default delay those pages were still counted in its peak
/// while the next phase faulted in new ones. A 10k-file check (one run of
/// each, in turn, on a shared 2-core host): 203 MiB peak by default, 180
/// with 10 ms, 175 with 0; its CPU time unchanged with 10 ms, 4% more
/// with 0 (the kernel faulting in pages given back too early).
fn return_freed_memory_soon() {
    set_purge_delay(10);
}

/// `fix` keeps mimalloc's default delay (1000 ms): each pass frees the
/// documents, builds and findings it replaces and makes others of the same
/// size, and pages given back after 10 ms were faulted in again by the next
/// pass (10k bench tree: ~300k page faults, a quarter of the run's CPU
/// time in the kernel; ~175k with the default delay, for ~5% more peak).
fn keep_freed_memory_between_passes() {
    set_purge_delay(1000);
}

fn set_purge_delay(ms: std::ffi::c_long) {
    #[cfg(not(feature = "system-alloc"))]
    // SAFETY: `mi_option_set` stores an integer option (no pointer); the
    // option's index is checked by `purge_delay_is_mimallocs` below.
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, ms)
    };
    #[cfg(feature = "system-alloc")]
    let _ = ms;
}

/// tree-sitter's C library allocates through mimalloc too, not the C
/// library's `malloc`: parsing an 8 MiB Python module on all threads spent
/// a third of its parse in glibc's per-thread arenas (growing them with
/// `mprotect`, faulting in fresh pages) and freeing its trees a few percent
/// more. Like tree-sitter's own default allocator, a failed allocation
/// aborts (tree-sitter does not check for null). The grammars' external
/// scanners keep the C library's allocator (they are built without
/// `TREE_SITTER_REUSE_ALLOCATOR`), each pairing its own calls.
fn tree_sitter_on_mimalloc() {
    #[cfg(not(feature = "system-alloc"))]
    {
        use std::ffi::c_void;
        unsafe extern "C" fn ts_malloc(size: usize) -> *mut c_void {
            // SAFETY: mimalloc's `malloc`.
            let p = unsafe { mi_malloc(size) };
            if p.is_null() && size != 0 {
                std::process::abort();
            }
            p
        }
        unsafe extern "C" fn ts_calloc(count: usize, size: usize) -> *mut c_void {
            // SAFETY: mimalloc's `calloc`.
            let p = unsafe { mi_calloc(count, size) };
            if p.is_null() && count != 0 && size != 0 {
                std::process::abort();
            }
            p
        }
        unsafe extern "C" fn ts_realloc(p: *mut c_void, size: usize) -> *mut c_void {
            // SAFETY: `p` came from one of these functions (or is null).
            let q = unsafe { mi_realloc(p, size) };
            if q.is_null() && size != 0 {
                std::process::abort();
            }
            q
        }
        unsafe extern "C" fn ts_free(p: *mut c_void) {
            // SAFETY: `p` came from one of these functions (or is null).
            unsafe { mi_free(p) }
        }
        // SAFETY: one allocator family (mimalloc's, whose blocks are aligned
        // as `malloc`'s), never null for a size above 0; called first thing
        // in `main`, on one thread, before any tree-sitter object exists.
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc: ts_malloc,
                calloc: ts_calloc,
                realloc: ts_realloc,
                free: ts_free,
            }))
        };
    }
}

#[derive(Parser)]
#[command(
    name = "dslint",
    version,
    about = "Lint and fix NVIDIA DeepStream pipeline configs, driven by measurement"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProfileArg {
    Bench,
    Display,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Format {
    Human,
    /// One line per finding: `path:line:col: CODE message`.
    Concise,
    Json,
    Sarif,
    Github,
    Rdjson,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum TextOrJson {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(clap::Args)]
struct Common {
    /// Files or folders (folders are walked, respecting .gitignore).
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// A facts file from `dslint measure` (or written by hand).
    #[arg(long)]
    facts: Option<PathBuf>,
    /// bench: measure-ready output branch; display (default): R6 findings are info only.
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
    /// A dslint.toml (default: the closest dslint.toml, .dslint.toml or
    /// pyproject.toml with [tool.dslint] above the first path).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Ignore any project configuration file.
    #[arg(long)]
    isolated: bool,
    /// Only these codes (comma-separated; a prefix such as DS6 selects a
    /// family, ALL every rule).
    #[arg(long, value_delimiter = ',', value_name = "CODES", value_parser = selector::parse)]
    select: Vec<String>,
    /// Not these codes (comma-separated, prefixes allowed).
    #[arg(long, value_delimiter = ',', value_name = "CODES", value_parser = selector::parse)]
    ignore: Vec<String>,
    /// Colour the output: auto (a terminal without NO_COLOR), always, never.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorArg,
    /// Exit 0 even when there are findings (or, for `fix`, changes to make);
    /// usage and I/O errors still exit 2.
    #[arg(long)]
    exit_zero: bool,
    /// The project root: nothing outside it is written, or read unless
    /// --follow-outside (default: the nearest folder above the first path
    /// with .git, dslint.toml or pyproject.toml, else the current folder).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Also read configs referenced from outside the project root (never
    /// written; their content is never shown).
    #[arg(long)]
    follow_outside: bool,
    /// Check the files changed since REF instead (`git diff --name-only
    /// REF` plus untracked files, under PATHS; deleted files left out),
    /// each with the pipelines around it, as if named.
    #[arg(long, value_name = "REF", allow_hyphen_values = true)]
    changed_since: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Report findings (exit 0: nothing at warning or above, 1: findings, 2: usage or I/O error).
    Check {
        #[command(flatten)]
        common: Common,
        /// human (the source line and why), concise (one line per finding),
        /// json, sarif (code scanning), github (annotations), rdjson (reviewdog).
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Print a count per code (with totals) instead of each finding;
        /// as JSON with `--format json`.
        #[arg(long)]
        statistics: bool,
        /// List every file looked at: what it was read as, or why it was
        /// skipped; no findings (as JSON with `--format json`).
        #[arg(long)]
        show_files: bool,
        /// Print only the findings (no summary line); nothing when clean.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Show (default) or apply (--write) the fixes.
    Fix {
        #[command(flatten)]
        common: Common,
        /// Apply the fixes (atomic writes); without it, print a diff.
        #[arg(long)]
        write: bool,
        /// Print the diff (the default without --write).
        #[arg(long)]
        diff: bool,
        /// Also apply fixes that may change results.
        #[arg(long)]
        unsafe_fixes: bool,
        /// With files named: also apply fixes that edit other files of
        /// their pipelines (the app of a named nvinfer config).
        #[arg(long)]
        fix_related: bool,
        /// `bench`: write NAME.bench.txt/.yml beside each app config with R6
        /// applied, leaving the display config as it is.
        #[arg(long)]
        variant: Option<String>,
        /// List every fix applied (file:line, code, what it did).
        #[arg(long)]
        show_fixes: bool,
        /// human: diffs and a summary; json: one object with the diffs, the
        /// fixes applied and the findings left.
        #[arg(long, value_enum, default_value = "human")]
        format: TextOrJson,
        /// No diff or summary; only errors.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Nsight Systems captures of a GPU inference service from its launch script.
    Nsys {
        #[command(subcommand)]
        what: NsysCommand,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell to write the script for.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of dslint or of one of its commands
    /// (`dslint man measure sweep`), or write them all with --out-dir.
    Man {
        /// The command whose page to print (default: dslint itself).
        command: Vec<String>,
        /// Write every page (dslint.1, dslint-check.1, …) into this folder.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
    /// List the rules: code, name, severity, fix, summary.
    Rules {
        /// human (a table with a header) or json.
        #[arg(long, value_enum, default_value = "human")]
        format: TextOrJson,
    },
    /// Print a rule's page.
    Explain {
        /// A rule code (DS207) or name (engine-name-mismatch).
        code: String,
    },
    /// The profile summary from a facts file.
    Report {
        /// The facts file written by `dslint measure` (or by hand).
        #[arg(long)]
        facts: PathBuf,
        /// md (the summary to read) or json.
        #[arg(long, value_enum, default_value = "md")]
        format: ReportFormat,
    },
    /// Measure the hardware, a batch sweep or a profile into the facts file.
    Measure {
        #[command(subcommand)]
        what: MeasureCommand,
    },
    /// The facts file.
    Facts {
        #[command(subcommand)]
        what: FactsCommand,
    },
}

#[derive(Subcommand)]
enum MeasureCommand {
    /// GPU identity and theoretical ceilings of every GPU from nvidia-smi.
    Hw(dslint::measure::hw::HwOptions),
    /// fps at each batch size until the plateau.
    Sweep(dslint::measure::commands::SweepOptions),
    /// The decode ceiling: a decode-only run of the streams, more of them until fps stops rising.
    Decode(dslint::measure::decode::DecodeOptions),
    /// An nsys profile of the full pipeline, reduced to bound signals.
    Profile(dslint::measure::profile::ProfileOptions),
}

#[derive(Clone, Copy, ValueEnum)]
enum LevelArg {
    Coarse,
    Detailed,
}

impl From<LevelArg> for dslint::nsys::wrap::Level {
    fn from(l: LevelArg) -> Self {
        match l {
            LevelArg::Coarse => dslint::nsys::wrap::Level::Coarse,
            LevelArg::Detailed => dslint::nsys::wrap::Level::Detailed,
        }
    }
}

#[derive(Subcommand)]
enum NsysCommand {
    /// Write SCRIPT_nsys.sh: the server command runs under nsys profile.
    Wrap {
        /// The launch script (it is read, never changed).
        script: PathBuf,
        /// coarse: from cudaProfilerStart(), CUDA/NVTX/OS runtime/cuBLAS/GIL;
        /// detailed: also every CUDA graph node.
        #[arg(long, value_enum, default_value = "coarse")]
        level: LevelArg,
        /// Where reports go (default /tmp/nsys_record; NSYS_OUTPUT_DIR overrides at run time).
        #[arg(long)]
        output_dir: Option<String>,
        /// Print the diff and write nothing.
        #[arg(long)]
        diff: bool,
        /// The line of the launch command, when dslint cannot tell.
        #[arg(long)]
        line: Option<usize>,
    },
    /// Add profiler start/stop around model steps in FastDeploy's runner.
    Inject {
        /// Inject into FastDeploy (DIR: a checkout, site-packages or the package).
        #[arg(long, num_args = 0..=1, default_missing_value = "")]
        fastdeploy: Option<String>,
        /// A launch script whose exported PYTHONPATH locates FastDeploy.
        #[arg(long)]
        script: Option<PathBuf>,
        /// The model step at which the profiler starts.
        #[arg(long, default_value_t = 40)]
        start_step: u32,
        /// The model step at which it stops.
        #[arg(long, default_value_t = 60)]
        stop_step: u32,
        /// Report the state and the diff; write nothing.
        #[arg(long)]
        diff: bool,
    },
    /// Wrap, start the service, send requests, and collect a named report.
    Capture {
        /// The service's launch script (wrapped into SCRIPT_nsys.sh first).
        #[arg(long)]
        script: PathBuf,
        /// The port the service listens on (polled until it answers).
        #[arg(long)]
        port: u16,
        /// The host the service listens on.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// A command that sends the requests ({host}, {port}, {model} are replaced).
        #[arg(long)]
        requests: Option<String>,
        /// What the built-in request sends, and the report's name part.
        #[arg(long = "type", default_value = "text", value_parser = ["text", "mm", "custom"])]
        kind: String,
        /// coarse or detailed, as for `nsys wrap`.
        #[arg(long, value_enum, default_value = "coarse")]
        level: LevelArg,
        /// Where the report goes.
        #[arg(long, default_value = "/tmp/nsys_record")]
        output_dir: PathBuf,
        /// Seconds between readiness polls.
        #[arg(long, default_value = "5", value_parser = dslint::measure::run::seconds_arg)]
        poll_interval: std::time::Duration,
        /// Seconds to wait for the service (default 20 minutes).
        #[arg(long, default_value = "1200", value_parser = dslint::measure::run::seconds_arg)]
        ready_timeout: std::time::Duration,
        /// Seconds a failing log must stay still before giving up.
        #[arg(long, default_value = "30", value_parser = dslint::measure::run::seconds_arg)]
        stall: std::time::Duration,
        /// Tokens the built-in request asks for (more than the stop step).
        #[arg(long, default_value_t = 256)]
        max_tokens: u32,
        /// Run nsys stats on the report and print the summary.
        #[arg(long)]
        stats: bool,
        /// Seconds between the two size checks of the report.
        #[arg(long, default_value = "3", hide = true, value_parser = dslint::measure::run::seconds_arg)]
        stable_seconds: std::time::Duration,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Md,
    Json,
}

#[derive(Subcommand)]
enum FactsCommand {
    /// Print the facts file's JSON Schema.
    Schema,
}

fn main() -> ExitCode {
    return_freed_memory_soon();
    tree_sitter_on_mimalloc();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    run(cli).unwrap_or_else(Stop::exit_code)
}

/// Run a command; `Err` when its output stopped early (a reader that went
/// away, or a failed write: see `files::stdio`).
fn run(cli: Cli) -> Result<ExitCode, Stop> {
    Ok(match cli.command {
        Command::Check {
            common,
            format,
            statistics,
            show_files,
            quiet,
        } => check(
            common,
            CheckOutput {
                format,
                statistics,
                show_files,
                quiet,
            },
        )?,
        Command::Fix {
            common,
            write,
            diff: _,
            unsafe_fixes,
            fix_related,
            variant,
            show_fixes,
            format,
            quiet,
        } => fix(
            common,
            FixRun {
                write,
                unsafe_fixes,
                fix_related,
                variant,
                show_fixes,
                format,
                quiet,
            },
        )?,
        Command::Nsys { what } => nsys(what)?,
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "dslint", &mut script);
            stdio::write(|w| w.write_all(&script))?;
            ExitCode::SUCCESS
        }
        Command::Man { command, out_dir } => man(&command, out_dir.as_deref())?,
        Command::Rules { format } => {
            stdio::print(&match format {
                TextOrJson::Human => output::rules::text(registry::RULES),
                TextOrJson::Json => output::rules::json(registry::RULES),
            })?;
            ExitCode::SUCCESS
        }
        Command::Explain { code } => match registry::find(&code) {
            Some(r) => {
                stdio::print(r.page)?;
                ExitCode::SUCCESS
            }
            None => {
                dslint::errln!("dslint: no rule `{code}` (see `dslint rules`)");
                ExitCode::from(2)
            }
        },
        Command::Measure { what } => measure(what)?,
        Command::Report { facts, format } => match Facts::load(&facts) {
            Ok(f) => {
                stdio::print(&match format {
                    // A facts file may be the repository's: its strings
                    // (a GPU name) reach the terminal escaped.
                    ReportFormat::Md => output::escape_controls_by_line(&dslint::report::render_md(&f)),
                    ReportFormat::Json => dslint::report::render_json(&f),
                })?;
                ExitCode::SUCCESS
            }
            Err(e) => {
                dslint::errln!("dslint: facts: {e}");
                ExitCode::from(2)
            }
        },
        Command::Facts {
            what: FactsCommand::Schema,
        } => {
            stdio::print(&format!("{}\n", Facts::schema_json()))?;
            ExitCode::SUCCESS
        }
    })
}

/// `dslint man`: the page of dslint or of a command; every page it names
/// in SEE ALSO (`dslint-check(1)`, …) is one it can print or write.
fn man(path: &[String], out_dir: Option<&std::path::Path>) -> Result<ExitCode, Stop> {
    use clap::CommandFactory;
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    if let Some(dir) = out_dir {
        return Ok(match clap_mangen::generate_to(cmd, dir) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                dslint::errln!("dslint: {}: {e}", dir.display());
                ExitCode::from(2)
            }
        });
    }
    let mut page = &cmd;
    for name in path {
        match page.find_subcommand(name) {
            Some(sub) => page = sub,
            None => {
                dslint::errln!("dslint: no command `{}` (see `dslint --help`)", path.join(" "));
                return Ok(ExitCode::from(2));
            }
        }
    }
    let mut out = Vec::new();
    if clap_mangen::Man::new(page.clone()).render(&mut out).is_err() {
        return Ok(ExitCode::from(2));
    }
    stdio::write(|w| w.write_all(&out))?;
    Ok(ExitCode::SUCCESS)
}

fn color(c: ColorArg) -> bool {
    match c {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal(),
    }
}

/// Command-line options merged with the project configuration.
struct Resolved {
    /// The paths to check: the command line's, or the files changed since
    /// `--changed-since`'s revision.
    paths: Vec<PathBuf>,
    root: ProjectRoot,
    facts: Option<Facts>,
    profile: Profile,
    settings: dslint::rules::Settings,
}

fn resolve(common: &Common) -> Result<Resolved, ExitCode> {
    let fail = |e: String| {
        dslint::errln!("dslint: {e}");
        ExitCode::from(2)
    };
    let mut root = ProjectRoot::for_paths(&common.paths, common.root.as_deref())
        .map_err(|e| fail(format!("project root: {e}")))?;
    root.follow_outside = common.follow_outside;
    let cfg_path = if common.isolated {
        None
    } else {
        common
            .config
            .clone()
            .or_else(|| common.paths.first().and_then(|p| dslint::config::discover(p, &root)))
    };
    let cfg = match &cfg_path {
        Some(p) => dslint::config::load(p, Some(&root)).map_err(fail)?,
        None => dslint::config::ProjectConfig::default(),
    };
    let facts_path = common.facts.clone().or_else(|| cfg.facts.clone());
    let facts = match facts_path {
        None => None,
        Some(p) => Some(Facts::load(&p).map_err(|e| fail(format!("facts: {e}")))?),
    };
    let profile = match (common.profile, cfg.profile.as_deref()) {
        (Some(ProfileArg::Bench), _) | (None, Some("bench")) => Profile::Bench,
        _ => Profile::Display,
    };
    let settings = cfg.selection(&common.select, &common.ignore).map_err(fail)?;
    let paths = match &common.changed_since {
        Some(rev) => dslint::context::changed::changed_files(rev, &common.paths).map_err(fail)?,
        None => common.paths.clone(),
    };
    Ok(Resolved {
        paths,
        root,
        facts,
        profile,
        settings,
    })
}

/// How `check` reports.
struct CheckOutput {
    format: Format,
    statistics: bool,
    show_files: bool,
    quiet: bool,
}

fn check(common: Common, how: CheckOutput) -> Result<ExitCode, Stop> {
    let r = match resolve(&common) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    if (how.statistics || how.show_files) && !matches!(how.format, Format::Human | Format::Json) {
        dslint::errln!("dslint: --statistics and --show-files print as human (default) or json");
        return Ok(ExitCode::from(2));
    }
    let mut ws = Workspace::load_in(&r.paths, Some(r.root.clone()), Default::default());
    Context::find(&ws).load(&mut ws);
    // SARIF names each finding's group and key from the parse.
    let parses_after = how.format == Format::Sarif;
    let result = dslint::rules::check_for_report(&mut ws, r.facts.as_ref(), r.profile, &r.settings, parses_after);
    // The process ends after the output: what the run built goes back with
    // it instead of being freed piece by piece (on one thread, ~7% of a
    // check of 10k files). `ws` and the findings likewise below.
    std::mem::forget(result.pipelines);
    let diags = result.diagnostics;
    let problems: Vec<_> = output::file_problems(&ws)
        .into_iter()
        .filter(|p| r.settings.enabled(p.code))
        .collect();
    report_unchecked_arguments(&ws);
    let totals = output::Totals::count(&ws, &diags, &problems);
    let json = how.format == Format::Json;
    if how.show_files {
        let entries = output::files::entries(&ws);
        stdio::print(&if json {
            output::files::json(&entries)
        } else {
            output::files::text(&entries)
        })?;
        return Ok(ExitCode::from(if unchecked_is_error(&ws) { 2 } else { 0 }));
    }
    if how.statistics {
        let rows = output::statistics::count(&diags, &problems);
        stdio::print(&if json {
            output::statistics::json(&rows, &totals)
        } else {
            output::statistics::text(&rows, &totals)
        })?;
    } else {
        let summary = || match &common.changed_since {
            Some(rev) if r.paths.is_empty() => format!(
                "Nothing checked: no config changed since {}.\n",
                output::escape_controls(rev)
            ),
            _ => human::summary(&totals, ws.skipped.len(), ws.missing_args.len()),
        };
        match how.format {
            Format::Human => {
                let style = human::Style {
                    color: color(common.color),
                };
                stdio::write(|w| human::write(w, &ws, &diags, &problems, &style))?;
                if !how.quiet {
                    stdio::print(&summary())?;
                }
            }
            Format::Concise => {
                stdio::print(&output::concise::render(&ws, &diags, &problems))?;
                if !how.quiet {
                    stdio::print(&summary())?;
                }
            }
            Format::Json => stdio::write(|w| output::json::write(w, &ws, &diags, &problems))?,
            Format::Sarif => stdio::write(|w| output::sarif::write(w, &ws, &diags, &problems))?,
            Format::Github => stdio::print(&output::machine::github(&ws, &diags, &problems))?,
            Format::Rdjson => stdio::print(&output::machine::rdjson(&ws, &diags, &problems))?,
        }
    }
    let code = if unchecked_is_error(&ws) {
        2
    } else {
        let findings = diags.iter().any(|d| d.severity() >= Severity::Warning)
            || problems.iter().any(|p| p.severity >= Severity::Warning);
        u8::from(findings && !common.exit_zero)
    };
    drop(problems);
    std::mem::forget(diags);
    std::mem::forget(ws);
    Ok(ExitCode::from(code))
}

/// Paths named on the command line that were not checked: missing ones
/// (an error, exit 2) and files that are no DeepStream config (a notice);
/// and a folder its ignore files kept from being walked (an error: the
/// run checked less than it was asked to, whatever rules are selected).
fn report_unchecked_arguments(ws: &Workspace) {
    for p in &ws.missing_args {
        dslint::errln!("dslint: {}: no such file or folder", p.display());
    }
    if let Some(p) = ws.walk_stopped() {
        dslint::errln!("dslint: {}: {}", p.display(), dslint::files::walk::over_notice());
    }
    for s in ws.skipped.iter().filter(|s| s.named) {
        dslint::errln!("dslint: {}: skipped, not checked: {}", s.path.display(), s.reason);
    }
}

/// Whether what `report_unchecked_arguments` reports fails the run (exit 2).
fn unchecked_is_error(ws: &Workspace) -> bool {
    !ws.missing_args.is_empty() || ws.walk_stopped().is_some()
}

/// What `fix` does and how it reports.
struct FixRun {
    write: bool,
    unsafe_fixes: bool,
    fix_related: bool,
    variant: Option<String>,
    show_fixes: bool,
    format: TextOrJson,
    quiet: bool,
}

fn fix(common: Common, how: FixRun) -> Result<ExitCode, Stop> {
    keep_freed_memory_between_passes();
    let r = match resolve(&common) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    if let Some(v) = how.variant {
        if v != "bench" {
            dslint::errln!("dslint: --variant takes `bench`");
            return Ok(ExitCode::from(2));
        }
        return dslint::fix::variant::write_bench_variants(
            &r.paths,
            &r.root,
            r.facts.as_ref(),
            how.write,
            color(common.color),
        );
    }
    let opts = FixOptions {
        facts: r.facts.as_ref(),
        profile: r.profile,
        unsafe_fixes: how.unsafe_fixes,
        selection: r.settings,
        root: Some(r.root.clone()),
        fix_related: how.fix_related,
    };
    let mut outcome = engine::run(&r.paths, &opts);
    report_unchecked_arguments(&outcome.final_ws);
    let mut failed = false;
    if how.write {
        let mut refused = std::collections::HashSet::new();
        for (path, e) in dslint::fix::write::write_changed(&r.root, &outcome.changed) {
            dslint::errln!("dslint: {e}");
            refused.insert(path);
            failed = true;
        }
        // The report says what the files now hold.
        outcome.keep_written(&refused);
    }
    // Files that could not be written fail the run even when the reader of
    // the report went away.
    let report = fix_report(&common, &how, &opts, &outcome);
    let code = if failed || unchecked_is_error(&outcome.final_ws) {
        ExitCode::from(2)
    } else {
        ExitCode::from(u8::from(!how.write && !outcome.changed.is_empty() && !common.exit_zero))
    };
    // The process ends after the report: what the run built (texts,
    // documents, findings, the graph and its shelves) goes back with it
    // instead of being freed piece by piece, as `check` does.
    std::mem::forget(outcome);
    report?;
    Ok(code)
}

/// `fix`'s report: JSON, or the diff on stdout and the summary on stderr.
fn fix_report(common: &Common, how: &FixRun, opts: &FixOptions, outcome: &engine::FixOutcome) -> Result<(), Stop> {
    if how.format == TextOrJson::Json {
        let problems: Vec<_> = output::file_problems(&outcome.final_ws)
            .into_iter()
            .filter(|p| opts.selection.enabled(p.code))
            .collect();
        stdio::print(&output::json::fix_report(outcome, &problems, how.write))?;
    } else {
        if !how.write && !how.quiet {
            use dslint::fix::diff::{Shown, write_all};
            let style = color(common.color);
            // The file's bytes go only to a regular file (`> fix.patch`):
            // a terminal acts on them, and so can what reads a pipe (a CI
            // runner reads a step's output a line at a time, a lone CR
            // ending one, and obeys a line that starts with `::`).
            let shown = if !style && stdio::stdout_is_regular_file() {
                Shown::Exact
            } else {
                Shown::Escaped { color: style }
            };
            let mut escaped = 0;
            stdio::write(|w| write_all(&outcome.changed, shown, w).map(|n| escaped = n))?;
            if escaped > 0 {
                dslint::errln!(
                    "{} control characters shown escaped (\\x0d): {} not apply; `fix --diff > FILE` writes the bytes as they are.",
                    if escaped == 1 {
                        "1 diff has".to_string()
                    } else {
                        format!("{escaped} diffs have")
                    },
                    if escaped == 1 { "it will" } else { "they will" },
                );
            }
        }
        if how.show_fixes {
            for line in &outcome.log {
                dslint::errln!("{line}");
            }
            for dropped in &outcome.dropped {
                dslint::errln!("{dropped}");
            }
        }
        if !how.quiet {
            dslint::errprint!("{}", dslint::fix::diff::summary(outcome, how.write));
            if !outcome.related_left.is_empty() {
                dslint::errln!(
                    "{} left: {} files that were not named; --fix-related applies {}:",
                    output::plural(outcome.related_left.len(), "fix"),
                    if outcome.related_left.len() == 1 {
                        "it edits"
                    } else {
                        "they edit"
                    },
                    if outcome.related_left.len() == 1 { "it" } else { "them" },
                );
                for left in &outcome.related_left {
                    dslint::errln!("  {left}");
                }
            }
        }
    }
    Ok(())
}

fn measure(what: MeasureCommand) -> Result<ExitCode, Stop> {
    use dslint::measure::commands;
    let result = match what {
        MeasureCommand::Hw(opts) => dslint::measure::hw::hw(&opts),
        MeasureCommand::Decode(opts) => dslint::measure::decode::decode(&opts),
        MeasureCommand::Sweep(opts) => commands::sweep_cmd(&opts),
        MeasureCommand::Profile(opts) => dslint::measure::profile::profile(&opts),
    };
    Ok(match result {
        Ok(out) => {
            stdio::print(&out)?;
            ExitCode::SUCCESS
        }
        Err(e) => {
            dslint::errln!("dslint: {e}");
            ExitCode::from(2)
        }
    })
}

fn nsys(what: NsysCommand) -> Result<ExitCode, Stop> {
    use dslint::nsys::{capture, inject, wrap};
    let result: Result<String, String> = match what {
        NsysCommand::Wrap {
            script,
            level,
            output_dir,
            diff,
            line,
        } => wrap::wrap_file(&script, level.into(), output_dir.as_deref(), line, diff),
        NsysCommand::Inject {
            fastdeploy,
            script,
            start_step,
            stop_step,
            diff,
        } => match fastdeploy {
            None => Err("name the framework: --fastdeploy [DIR]".to_string()),
            Some(dir) => {
                let dir = (!dir.is_empty()).then(|| PathBuf::from(dir));
                inject::inject_fastdeploy(dir.as_deref(), script.as_deref(), start_step, stop_step, diff)
            }
        },
        NsysCommand::Capture {
            script,
            port,
            host,
            requests,
            kind,
            level,
            output_dir,
            poll_interval,
            ready_timeout,
            stall,
            max_tokens,
            stats,
            stable_seconds,
        } => capture::capture(&capture::CaptureOptions {
            script,
            host,
            port,
            requests,
            kind,
            level: level.into(),
            output_dir,
            poll_interval,
            ready_timeout,
            stall,
            stable_interval: stable_seconds,
            report_timeout: std::time::Duration::from_secs(120),
            max_tokens,
            stats,
        }),
    };
    Ok(match result {
        Ok(out) => {
            stdio::print(&out)?;
            ExitCode::SUCCESS
        }
        Err(e) => {
            dslint::errln!("dslint: {e}");
            ExitCode::from(2)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every option and argument of every command says what it is for in
    /// `--help` (and so in the man pages).
    #[test]
    fn every_argument_is_documented() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in cmd.get_arguments() {
                let id = a.get_id().as_str();
                if a.is_hide_set() || id == "help" || id == "version" {
                    continue;
                }
                if a.get_help().is_none() && a.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {} (the command)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        let mut cmd = Cli::command();
        cmd.build();
        walk(&cmd, "dslint", &mut missing);
        assert!(missing.is_empty(), "undocumented: {missing:#?}");
    }
}

#[cfg(all(test, not(feature = "system-alloc")))]
mod allocator_tests {
    /// The option set at start is mimalloc's purge delay: its default
    /// (1000 ms in mimalloc v3's `options.c`) is at that index, and setting
    /// it reads back.
    #[test]
    fn purge_delay_is_mimallocs() {
        // SAFETY: integer option reads and writes (see `return_freed_memory_soon`).
        unsafe {
            if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
                assert_eq!(super::mi_option_get(super::MI_OPTION_PURGE_DELAY), 1000);
            }
            super::mi_option_set(super::MI_OPTION_PURGE_DELAY, 10);
            assert_eq!(super::mi_option_get(super::MI_OPTION_PURGE_DELAY), 10);
        }
    }
}
