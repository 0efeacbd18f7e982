//! What an ONNX model file in the tree shows of its quantization: whether
//! its graph has Q/DQ nodes (`QuantizeLinear` / `DequantizeLinear`), which
//! TensorRT builds with explicit quantization, the scales in the model,
//! whatever calibration table or precision flag nvinfer gives it.
//!
//! An ONNX file is a protobuf `ModelProto`; every node's `op_type` is a
//! plain string in it (graph, subgraphs and functions alike), while large
//! tensors may live in external data files, which hold no nodes. So a file
//! read to its end without those names has no Q/DQ node; one that cannot be
//! read, is too large to read here, or is a Git LFS pointer (its graph not
//! in the tree) is unknown.

use std::path::Path;

/// Read at most this much of a model (protobuf's own limit for one message
/// is 2 GiB): a larger file is unknown, not read (bounded work).
const MAX_MODEL_BYTES: u64 = 2 << 30;

/// What the first bytes of a Git LFS pointer file are (its spec line).
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/";

/// Whether the ONNX model at `path` has a Q/DQ node: `Some(false)` when it
/// was read to its end without one, `None` when that is not known (not
/// readable, over [`MAX_MODEL_BYTES`], or a Git LFS pointer).
/// `uantizeLinear` matches `QuantizeLinear`, `DequantizeLinear` and
/// `DynamicQuantizeLinear` alike.
pub fn has_qdq_nodes(path: &Path) -> Option<bool> {
    // Opened as any file the tree names: a FIFO, a device or a folder is
    // refused before it is opened (a FIFO would block the run, `/dev/zero`
    // never ends), never followed through to one.
    let (file, len) = crate::files::read::open_regular_sized(path, true).ok()?;
    if len > MAX_MODEL_BYTES {
        return None;
    }
    scan(file, len)
}

/// [`has_qdq_nodes`] of what `r` gives, `size` bytes as far as is known.
fn scan(r: impl std::io::Read, size: u64) -> Option<bool> {
    crate::files::read::find_in(r, size, MAX_MODEL_BYTES, &[b"uantizeLinear"], LFS_POINTER).ok()?
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A `NodeProto` (`op_type`, field 4) inside a `GraphProto` (`node`,
    /// field 1) inside a `ModelProto` (`graph`, field 7).
    fn model(ops: &[&str]) -> Vec<u8> {
        let field = |num: u8, data: &[u8]| {
            let mut v = vec![num << 3 | 2, u8::try_from(data.len()).unwrap()];
            v.extend_from_slice(data);
            v
        };
        let graph: Vec<u8> = ops.iter().flat_map(|op| field(1, &field(4, op.as_bytes()))).collect();
        let mut m = vec![0x08, 0x08];
        m.extend(field(7, &graph));
        m
    }

    /// A reader that hands out one byte at a time: a name split across
    /// reads is still found.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((first, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            buf[0] = *first;
            self.0 = rest;
            Ok(1)
        }
    }

    #[test]
    fn qdq_nodes_are_found_by_their_op_type() {
        let cases: [(Vec<u8>, Option<bool>); 7] = [
            (model(&["Conv", "Relu"]), Some(false)),
            (model(&["QuantizeLinear", "Conv"]), Some(true)),
            (model(&["Conv", "DequantizeLinear"]), Some(true)),
            (Vec::new(), Some(false)),
            (
                b"placeholder for a test: only its existence matters\n".to_vec(),
                Some(false),
            ),
            (
                b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n".to_vec(),
                None,
            ),
            (b"version https://git-lfs".to_vec(), Some(false)),
        ];
        for (bytes, want) in cases {
            assert_eq!(scan(bytes.as_slice(), bytes.len() as u64), want, "{bytes:?}");
            assert_eq!(scan(Trickle(&bytes), bytes.len() as u64), want, "trickled {bytes:?}");
        }
        // A name across the 1 MiB chunk boundary.
        let mut big = vec![b'x'; (1 << 20) - 5];
        big.extend_from_slice(b"DequantizeLinear");
        assert_eq!(scan(big.as_slice(), big.len() as u64), Some(true));
        // A file that grew after its size was read is still read to its end.
        assert_eq!(scan(big.as_slice(), 0), Some(true));
    }

    /// A model path that is a FIFO (or a device) is unknown, and the run
    /// does not block on it; a link to a model reads the model.
    #[test]
    fn only_regular_files_are_read() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("model.onnx");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(has_qdq_nodes(&fifo), None);
        assert_eq!(has_qdq_nodes(Path::new("/dev/zero")), None);
        let real = d.path().join("real.onnx");
        std::fs::write(&real, model(&["QuantizeLinear"])).unwrap();
        let link = d.path().join("link.onnx");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(has_qdq_nodes(&link), Some(true));
    }
}
