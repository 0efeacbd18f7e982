//! Running the user's commands: split into words (no shell), placeholders
//! substituted inside words, output read line by line, killed at the
//! timeout, and Ctrl-C stops the children dslint started and only those.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Process groups of the children running now (for Ctrl-C).
static CHILDREN: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Remember a child's process group for Ctrl-C.
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

/// On Ctrl-C, end the children's process groups, then exit 130.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        if let Ok(kids) = CHILDREN.lock() {
            for &pg in kids.iter() {
                // SAFETY: kill(2) with a negative pid signals that process
                // group; no memory is involved.
                unsafe {
                    libc::kill(-pg, libc::SIGTERM);
                }
            }
        }
        eprintln!("dslint: interrupted; stopped the commands it started");
        std::process::exit(130);
    });
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

pub struct Finished {
    pub lines: Vec<String>,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub seconds: f64,
}

/// Run `argv`, feeding each output line (stdout and stderr) to `on_line`;
/// stop it after `timeout` (a pipeline that loops its input runs until then).
pub fn run(argv: &[String], timeout: Duration, mut on_line: impl FnMut(&str)) -> Result<Finished, String> {
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
    let pid = child.id() as i32;
    if let Ok(mut k) = CHILDREN.lock() {
        k.push(pid);
    }
    let (tx, rx) = mpsc::channel::<String>();
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        let tx = tx.clone();
        readers.push(std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        }));
    }
    if let Some(err) = child.stderr.take() {
        let tx = tx.clone();
        readers.push(std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        }));
    }
    drop(tx);
    let mut lines = Vec::new();
    let mut timed_out = false;
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            timed_out = true;
            break;
        }
        match rx.recv_timeout(left.min(Duration::from_millis(200))) {
            Ok(l) => {
                on_line(&l);
                lines.push(l);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    if timed_out {
        stop_group(pid, &mut child);
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    for l in rx.try_iter() {
        on_line(&l);
        lines.push(l);
    }
    for r in readers {
        let _ = r.join();
    }
    if let Ok(mut k) = CHILDREN.lock() {
        k.retain(|&p| p != pid);
    }
    Ok(Finished {
        lines,
        exit_code: status.code(),
        timed_out,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// SIGTERM the group, then SIGKILL what is left after two seconds.
fn stop_group(pid: i32, child: &mut std::process::Child) {
    // SAFETY: signals a process group we created; no memory is involved.
    unsafe {
        libc::kill(-pid, libc::SIGTERM);
    }
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: as above.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// A background `nvidia-smi dmon -s u` for one run; `None` when nvidia-smi
/// is not on this machine.
pub struct Dmon {
    child: std::process::Child,
    reader: std::thread::JoinHandle<String>,
}

impl Dmon {
    pub fn start(gpu: u32) -> Option<Dmon> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new("nvidia-smi")
            .args(["dmon", "-s", "u", "-i", &gpu.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok()?;
        let out = child.stdout.take()?;
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                s.push_str(&l);
                s.push('\n');
            }
            s
        });
        Some(Dmon { child, reader })
    }

    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
        let f = run(&argv, Duration::from_millis(700), |l| seen.push(l.to_string())).unwrap();
        assert!(f.timed_out);
        assert!(f.seconds < 5.0);
        assert_eq!(seen, vec!["fps=10"]);
    }
}
