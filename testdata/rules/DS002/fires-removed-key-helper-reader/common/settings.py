"""Settings helpers shared by the apps: each takes the path of its file."""
import configparser


def apply_tracker_settings(path, tracker):
    parser = configparser.ConfigParser()
    parser.read(path)
    setters = {
        "tracker-width": lambda k: tracker.set_property("tracker-width", parser.getint("tracker", k)),
        "tracker-height": lambda k: tracker.set_property("tracker-height", parser.getint("tracker", k)),
        "ll-lib-file": lambda k: tracker.set_property("ll-lib-file", parser.get("tracker", k)),
        "enable-batch-process": lambda k: tracker.set_property(
            "enable_batch_process", parser.getint("tracker", k)
        ),
    }
    for key in parser["tracker"]:
        setters[key](key)
