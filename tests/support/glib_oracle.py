"""Ask GLib's own key-file reader what DeepStream would read.

Usage: glib_oracle.py < paths (one a line) → JSON on stdout: for each file, either
{"error": message} or {"groups": {group: {key: raw value}}}. Raw values are
GLib's `get_value`, before any typing, with repeated groups merged and the
last of repeated keys winning, as DeepStream sees them.
"""
import json
import sys

import gi

gi.require_version("GLib", "2.0")
from gi.repository import GLib  # noqa: E402

out = {}
for path in [l.rstrip("\n") for l in sys.stdin if l.strip()]:
    kf = GLib.KeyFile()
    try:
        with open(path, "rb") as f:
            data = f.read()
        kf.load_from_bytes(GLib.Bytes.new(data), GLib.KeyFileFlags.NONE)
        groups = {}
        for g in kf.get_groups()[0]:
            groups[g] = {k: kf.get_value(g, k) for k in kf.get_keys(g)[0]}
        out[path] = {"groups": groups}
    except GLib.Error as e:
        out[path] = {"error": e.message}
json.dump(out, sys.stdout)
