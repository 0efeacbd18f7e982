//! Running the user's commands: split into words (no shell), placeholders
//! substituted inside words, output read line by line, stopped at the
//! timeout or when the caller has its answer. A child runs in its own
//! process group, and stopping it ends the whole group. Output is bounded:
//! lines longer than `MAX_LINE` are cut, the reader blocks (and so the child)
//! when dslint falls behind, and only the last `TAIL_LINES` are kept. A run
//! is over when its child has exited, even if a grandchild that left the
//! group (`setsid`) still holds the pipe. SIGINT, SIGTERM and SIGHUP stop
//! the children dslint started, and only those.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Longest line passed on; the rest of a longer line is dropped.
pub const MAX_LINE: usize = 64 * 1024;
/// Lines kept for an error message.
pub const TAIL_LINES: usize = 20;
/// Lines buffered between the readers and dslint before the child blocks.
const CHANNEL_LINES: usize = 1024;
/// After the child exits, how long lines still in flight are read.
const DRAIN: Duration = Duration::from_millis(300);
/// Between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// Process groups of the children running now (for the signal handler).
static CHILDREN: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Remember a child's process group for the signal handler.
pub fn register_child(pgid: i32) {
    if let Ok(mut k) = CHILDREN.lock() {
        k.push(pgid);
    }
}

pub fn unregister_child(pgid: i32) {
    if let Ok(mut k) = CHILDREN.lock() {
        k.retain(|&p| p != pgid);
    }
}

fn group_alive(pg: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks that the group exists.
    unsafe { libc::kill(-pg, 0) == 0 }
}

fn signal_group(pg: i32, sig: i32) {
    // SAFETY: kill(2) with a negative pid signals that process group (one
    // dslint created); no memory is involved.
    unsafe {
        libc::kill(-pg, sig);
    }
}

/// SIGTERM a group, SIGKILL what is left of it after `GRACE`. `reap`
/// collects the group's leader when it has exited (true once it is gone):
/// an unreaped leader still counts as a member of its group.
fn end_group(pg: i32, mut reap: impl FnMut() -> bool) {
    signal_group(pg, libc::SIGTERM);
    let until = Instant::now() + GRACE;
    while Instant::now() < until {
        if reap() && !group_alive(pg) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    signal_group(pg, libc::SIGKILL);
}

/// Reap a child by pid without blocking; true once it is gone.
fn reap_pid(pid: i32) -> bool {
    // SAFETY: waitpid(2) with a null status pointer and WNOHANG.
    unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) != 0 }
}

/// End a child we hold and its group; its exit status.
fn end_child(child: &mut Child) -> Option<ExitStatus> {
    let pg = child.id() as i32;
    end_group(pg, || matches!(child.try_wait(), Ok(Some(_))));
    let status = child.wait().ok();
    unregister_child(pg);
    status
}

/// On SIGINT, SIGTERM or SIGHUP: end the children's process groups, then
/// exit 130.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        let groups = CHILDREN.lock().map(|k| k.clone()).unwrap_or_default();
        let ends: Vec<_> = groups
            .into_iter()
            .map(|pg| std::thread::spawn(move || end_group(pg, || reap_pid(pg))))
            .collect();
        for e in ends {
            let _ = e.join();
        }
        crate::errln!("dslint: interrupted; stopped the commands it started");
        std::process::exit(130);
    });
}

/// A value in seconds from the command line: a finite positive number no
/// larger than a week (`Duration::from_secs_f64` panics on the rest).
pub fn seconds_arg(s: &str) -> Result<Duration, String> {
    const WEEK: f64 = 7.0 * 24.0 * 3600.0;
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("`{s}`: give a positive number of seconds"));
    }
    if v > WEEK {
        return Err(format!("`{s}`: at most {WEEK} seconds (a week)"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// Split a template into words as a POSIX shell would (quotes kept as
/// grouping only) and substitute `{name}` placeholders inside each word, so
/// a value with spaces stays one argument.
pub fn build_argv(template: &str, vars: &[(&str, String)]) -> Result<Vec<String>, String> {
    let words = shell_words::split(template).map_err(|e| format!("cannot split the command: {e}"))?;
    if words.is_empty() {
        return Err("the command is empty".into());
    }
    Ok(words
        .into_iter()
        .map(|w| vars.iter().fold(w, |acc, (k, v)| acc.replace(&format!("{{{k}}}"), v)))
        .collect())
}

/// What the caller says after each line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The caller has what it needs: stop the child now.
    Stop,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The child exited by itself.
    Exited,
    /// The caller asked to stop.
    Stopped,
    /// The timeout passed.
    TimedOut,
}

pub struct Finished {
    /// The last `TAIL_LINES` lines.
    pub tail: Vec<String>,
    pub status: Option<ExitStatus>,
    pub ended: Ended,
    pub seconds: f64,
    /// Lines longer than `MAX_LINE` (cut).
    pub long_lines: usize,
}

impl Finished {
    /// "exit status 3", "killed by signal 15", for messages.
    pub fn status_text(&self) -> String {
        use std::os::unix::process::ExitStatusExt;
        match self.status {
            Some(s) => match (s.code(), s.signal()) {
                (Some(c), _) => format!("exit status {c}"),
                (None, Some(sig)) => format!("killed by signal {sig}"),
                _ => "ended".into(),
            },
            None => "still running when dslint stopped waiting".into(),
        }
    }
}

/// Whether the child has exited, leaving it unreaped: its pid, and so its
/// process group's id, stays reserved until `wait`, so ending the group
/// afterwards cannot reach a process that reused the number.
fn exited_unreaped(pid: i32) -> bool {
    // SAFETY: waitid(2) writes only into `info`, a zeroed siginfo_t we own;
    // WNOWAIT leaves the child waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        r == 0 && info.si_pid() != 0
    }
}

/// Read `src` line by line into `tx`; a line longer than `MAX_LINE` is cut
/// there and the rest of it dropped, so memory stays bounded whatever the
/// child prints. Returns when the pipe closes or dslint stops listening.
fn pump(src: impl Read, tx: mpsc::SyncSender<(String, bool)>) {
    let mut r = BufReader::with_capacity(64 * 1024, src);
    let mut line: Vec<u8> = Vec::new();
    let mut cut = false;
    loop {
        let buf = match r.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(b) => b,
        };
        let (take, newline) = match buf.iter().position(|&c| c == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let body = &buf[..if newline { take - 1 } else { take }];
        let room = MAX_LINE.saturating_sub(line.len());
        if body.len() > room {
            cut = true;
        }
        line.extend_from_slice(&body[..body.len().min(room)]);
        r.consume(take);
        if newline {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let text = String::from_utf8_lossy(&line).into_owned();
            if tx.send((text, cut)).is_err() {
                return;
            }
            line.clear();
            cut = false;
        }
    }
    if !line.is_empty() {
        let _ = tx.send((String::from_utf8_lossy(&line).into_owned(), cut));
    }
}

/// Run `argv`, feeding each output line (stdout and stderr) to `on_line`,
/// until the child exits, `on_line` says `Stop`, or `timeout` passes (a
/// pipeline that loops its input runs until then). The child's process
/// group is ended in every case.
pub fn run(argv: &[String], timeout: Duration, mut on_line: impl FnMut(&str) -> Flow) -> Result<Finished, String> {
    use std::os::unix::process::CommandExt;
    let start = Instant::now();
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run `{}`: {e}", argv[0]))?;
    let pg = child.id() as i32;
    register_child(pg);
    let (tx, rx) = mpsc::sync_channel::<(String, bool)>(CHANNEL_LINES);
    // The readers are not joined: a grandchild that left the group may hold
    // the pipe open long after the run is over.
    if let Some(out) = child.stdout.take() {
        let tx = tx.clone();
        std::thread::spawn(move || pump(out, tx));
    }
    if let Some(err) = child.stderr.take() {
        let tx = tx.clone();
        std::thread::spawn(move || pump(err, tx));
    }
    drop(tx);
    let mut tail: VecDeque<String> = VecDeque::new();
    let mut long_lines = 0;
    let mut ended = Ended::Exited;
    let mut exited_at: Option<Instant> = None;
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            ended = Ended::TimedOut;
            break;
        }
        if exited_at.is_none() && exited_unreaped(pg) {
            exited_at = Some(Instant::now());
        }
        if exited_at.is_some_and(|t| t.elapsed() >= DRAIN) {
            break;
        }
        match rx.recv_timeout(left.min(Duration::from_millis(50))) {
            Ok((l, cut)) => {
                long_lines += usize::from(cut);
                let flow = on_line(&l);
                if tail.len() == TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(l);
                if flow == Flow::Stop {
                    ended = Ended::Stopped;
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                if exited_at.is_some() {
                    break;
                }
                // Both pipes closed; wait for the exit status.
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    if exited_at.is_some() {
        ended = Ended::Exited;
    }
    // Whatever is left of the group (the child, or helpers it left behind).
    let status = end_child(&mut child);
    Ok(Finished {
        tail: tail.into(),
        status,
        ended,
        seconds: start.elapsed().as_secs_f64(),
        long_lines,
    })
}

/// A background `nvidia-smi dmon -s u` for one run, reduced as it reads to
/// per-column maxima for one GPU; `None` when nvidia-smi is not on this
/// machine.
pub struct Dmon {
    child: Child,
    reader: std::thread::JoinHandle<std::collections::BTreeMap<String, f64>>,
}

impl Dmon {
    pub fn start(gpu: u32) -> Option<Dmon> {
        Dmon::start_program("nvidia-smi", gpu)
    }

    /// `program` stands in for nvidia-smi in tests.
    pub fn start_program(program: &str, gpu: u32) -> Option<Dmon> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(program)
            .args(["dmon", "-s", "u", "-i", &gpu.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok()?;
        register_child(child.id() as i32);
        let out = child.stdout.take()?;
        let reader = std::thread::spawn(move || {
            let mut parser = crate::measure::dmon::Parser::default();
            let mut max = std::collections::BTreeMap::new();
            for l in BufReader::new(out.take(64 * 1024 * 1024)).lines().map_while(Result::ok) {
                if let Some(row) = parser.line(&l).filter(|r| r.gpu == gpu) {
                    crate::measure::dmon::fold_max(&mut max, &row);
                }
            }
            max
        });
        Some(Dmon { child, reader })
    }

    /// Stop sampling; the maxima of each column.
    pub fn stop(mut self) -> std::collections::BTreeMap<String, f64> {
        end_child(&mut self.child);
        self.reader.join().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_stay_inside_words() {
        let argv = build_argv(
            "python3 bench.py --batch {batch} --config '{config}'",
            &[("batch", "8".into()), ("config", "/tmp/my dir/a b.txt".into())],
        )
        .unwrap();
        assert_eq!(
            argv,
            vec!["python3", "bench.py", "--batch", "8", "--config", "/tmp/my dir/a b.txt"]
        );
        let argv = build_argv("sh -c 'echo $HOME; rm x' b={batch}", &[("batch", "2; rm -rf /".into())]).unwrap();
        assert_eq!(argv[3], "b=2; rm -rf /");
        assert!(build_argv("unterminated 'quote", &[]).is_err());
    }

    #[test]
    fn hanging_children_are_killed_at_the_timeout() {
        let argv = build_argv("sh -c 'echo fps=10; sleep 30'", &[]).unwrap();
        let mut seen = Vec::new();
        let f = run(&argv, Duration::from_millis(700), |l| {
            seen.push(l.to_string());
            Flow::Continue
        })
        .unwrap();
        assert_eq!(f.ended, Ended::TimedOut);
        assert!(f.seconds < 5.0);
        assert_eq!(seen, vec!["fps=10"]);
        assert_eq!(f.status_text(), "killed by signal 15");
    }

    #[test]
    fn the_caller_stops_a_run() {
        let argv = build_argv(
            "sh -c 'i=0; while true; do echo fps=$i; i=$((i+1)); sleep 0.01; done'",
            &[],
        )
        .unwrap();
        let mut n = 0;
        let f = run(&argv, Duration::from_secs(20), |_| {
            n += 1;
            if n == 5 { Flow::Stop } else { Flow::Continue }
        })
        .unwrap();
        assert_eq!(f.ended, Ended::Stopped);
        assert_eq!(n, 5);
        assert!(f.seconds < 5.0, "{}", f.seconds);
        assert_eq!(f.tail.last().map(String::as_str), Some("fps=4"));
    }

    #[test]
    fn long_lines_are_cut() {
        let argv = build_argv("sh -c 'head -c 300000 /dev/zero | tr \"\\0\" x; echo; echo fps=3'", &[]).unwrap();
        let mut lens = Vec::new();
        let f = run(&argv, Duration::from_secs(20), |l| {
            lens.push(l.len());
            Flow::Continue
        })
        .unwrap();
        assert_eq!(lens, vec![MAX_LINE, 5]);
        assert_eq!(f.long_lines, 1);
        assert_eq!(f.status_text(), "exit status 0");
    }

    #[test]
    fn seconds_are_validated() {
        assert_eq!(seconds_arg("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["-5", "0", "nan", "NaN", "inf", "1e300", "x", ""] {
            assert!(seconds_arg(bad).is_err(), "{bad}");
        }
    }
}
