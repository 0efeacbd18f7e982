//! The nvinfer enumerations a C or C++ source of the project extends: a
//! fork of nvinfer that adds a network type (`NvDsInferNetworkType_…` in
//! its copy of `nvdsinfer_context.h`, and a `case` for it in its
//! `gstnvinfer_property_parser.cpp`) accepts a `network-type` NVIDIA's
//! parser refuses, so the value's range is the fork's, not the table's.
//!
//! NVIDIA's parser checks these keys with a `switch` over the enumeration's
//! names (`gst_nvinfer_parse_props`: `case NvDsInferNetworkType_Detector:`
//! … `default:` "Invalid value"), so a member name the stock headers lack,
//! anywhere in the project's sources, is what a fork that takes a new value
//! writes. A vendored copy of NVIDIA's own files names only stock members
//! and extends nothing. Taken without parsing C: each `<PREFIX><Name>`
//! identifier whose name is not one of DeepStream 9.1's.

/// The longest member name looked at after its prefix (a longer run of
/// identifier bytes is not compared, and counts as a new member).
const MAX_MEMBER: usize = 80;

/// An nvinfer enumeration whose range a `[property]` key is checked
/// against: the key, the prefix of its members' names, and the members
/// DeepStream 9.1 defines (`nvdsinfer_context.h`; DS 9.1 sources name no
/// others: `git grep` over the release).
pub struct StockEnum {
    pub key: &'static str,
    pub prefix: &'static str,
    pub members: &'static [&'static str],
}

/// The enumerations DS003 checks a range of (`rules/keys.tsv`).
pub const STOCK_ENUMS: &[StockEnum] = &[
    StockEnum {
        key: "network-type",
        prefix: "NvDsInferNetworkType_",
        members: &[
            "Detector",
            "Classifier",
            "Segmentation",
            "InstanceSegmentation",
            "Other",
        ],
    },
    StockEnum {
        key: "network-mode",
        prefix: "NvDsInferNetworkMode_",
        members: &["FP32", "INT8", "FP16", "BEST"],
    },
];

/// The keys (of [`STOCK_ENUMS`]) whose enumeration the source names a
/// member of that DeepStream 9.1 lacks. One memmem pass per enumeration;
/// each hit reads at most [`MAX_MEMBER`] bytes.
pub fn extended_keys(text: &[u8]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for e in STOCK_ENUMS {
        let prefix = e.prefix.as_bytes();
        let extended = memchr::memmem::find_iter(text, prefix).any(|at| {
            // A longer identifier that merely ends in the prefix
            // (`MyNvDsInferNetworkType_X`) is another name.
            if at > 0 && is_ident(text[at - 1]) {
                return false;
            }
            let rest = &text[at + prefix.len()..];
            let len = rest.iter().take(MAX_MEMBER + 1).take_while(|&&b| is_ident(b)).count();
            // The prefix alone (in a comment, a macro paste) names no member.
            len > 0 && !e.members.iter().any(|m| m.as_bytes() == &rest[..len])
        });
        if extended {
            out.push(e.key);
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_the_stock_headers_lack_extends_its_key() {
        let fork = b"typedef enum {\n NvDsInferNetworkType_Detector,\n NvDsInferNetworkType_FaceDetection,\n NvDsInferNetworkType_Other = 100\n} NvDsInferNetworkType;\n";
        assert_eq!(extended_keys(fork), vec!["network-type"]);
        let stock =
            b"case NvDsInferNetworkType_Detector:\ncase NvDsInferNetworkType_Other:\ncase NvDsInferNetworkMode_BEST:\n";
        assert!(extended_keys(stock).is_empty());
        // Both enumerations, each named once.
        let both = b"NvDsInferNetworkMode_FP8 NvDsInferNetworkType_Pose NvDsInferNetworkType_Pose";
        assert_eq!(extended_keys(both), vec!["network-type", "network-mode"]);
        // The prefix alone, or inside a longer identifier, names no member.
        assert!(extended_keys(b"/* NvDsInferNetworkType_ */ MyNvDsInferNetworkType_X").is_empty());
        // A stock name that is the start of a longer one is another name.
        assert_eq!(extended_keys(b"NvDsInferNetworkType_DetectorV2"), vec!["network-type"]);
    }

    #[test]
    fn bounded_on_hostile_text() {
        // A 1 MiB identifier after the prefix: one bounded look, a new member.
        let mut text = b"NvDsInferNetworkType_".to_vec();
        text.extend(std::iter::repeat_n(b'A', 1 << 20));
        assert_eq!(extended_keys(&text), vec!["network-type"]);
        // The prefix at the very end of the text.
        assert!(extended_keys(b"x NvDsInferNetworkMode_").is_empty());
    }
}
