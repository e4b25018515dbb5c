"""What every Python compat driver does from the command line (see py.ts, which runs them).

    <driver>.py COMMAND < args.json

prints the command's result as one JSON object and exits 0; any exception is printed as
{"exception": ..., "traceback": ...} with exit code 1, so the test shows what the client raised.
"""
import json
import sys
import traceback


def main(commands, default=None):
    """Runs commands[argv[1]] on the JSON object read from stdin; `default` serialises what JSON cannot."""
    try:
        raw = sys.stdin.read()
        args = json.loads(raw) if raw.strip() else {}
        print(json.dumps(commands[sys.argv[1]](args), default=default))
    except Exception as e:  # noqa: BLE001 - report everything to the test
        print(json.dumps({'exception': repr(e), 'traceback': traceback.format_exc()}))
        sys.exit(1)
