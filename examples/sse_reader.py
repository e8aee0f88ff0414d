"""A reader of the engine's lifecycle events over server-sent events, on Python's standard library alone.

It follows the firm's stream (GET /v1/events) from the start of the log, prints one line per event (its
cursor, type and external id), and when the connection drops it reconnects with the last cursor it got as
Last-Event-ID, so that it misses nothing. The engine delivers at least once: a consumer skips an event id it
has already processed. A revoked key ends the stream with an `error` event; the reader then stops (exit 1).

  ECA_API=http://127.0.0.1:8080 ECA_API_KEY=eca_... python3 examples/sse_reader.py
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request

API = os.environ.get("ECA_API", "http://127.0.0.1:8080")


def messages(key, last_id):
    """Yields the stream's messages, each a dict of its fields (`id`, `event`, `data`, `retry`)."""
    headers = {"Authorization": f"Bearer {key}", "Accept": "text/event-stream"}
    url = f"{API}/v1/events"
    if last_id is None:
        url += "?after=start"
    else:
        headers["Last-Event-ID"] = last_id
    # The stream sends a comment every 15 s: a minute without a line is a dead connection.
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=60) as response:
        message = {}
        for raw in response:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                if message:
                    yield message
                message = {}
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                message[field] = message[field] + "\n" + value if field in message else value


def main():
    key = os.environ.get("ECA_API_KEY")
    if not key:
        print("ECA_API_KEY: give an API key of the firm (eca api-keys create)", file=sys.stderr)
        return 2
    last_id, retry_s = None, 1.0
    while True:
        try:
            for message in messages(key, last_id):
                if message.get("event") == "error":
                    print(f"the stream ended: {message.get('data')}", file=sys.stderr)
                    return 1
                if "retry" in message:
                    retry_s = int(message["retry"]) / 1000
                if "id" in message:
                    last_id = message["id"]
                if "data" in message:
                    event = json.loads(message["data"])
                    print(message["id"], event["type"], event["externalId"], flush=True)
        except urllib.error.HTTPError as error:
            print(f"HTTP {error.code}: {error.read().decode('utf-8', 'replace')}", file=sys.stderr)
            if error.code in (400, 401, 403):
                return 1
        except OSError as error:
            print(f"reconnecting after {last_id}: {error}", file=sys.stderr)
        time.sleep(retry_s)


if __name__ == "__main__":
    sys.exit(main())
