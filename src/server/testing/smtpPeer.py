# A real SMTP server for tests (aiosmtpd, Debian's python3-aiosmtpd): listens on
# 127.0.0.1:<port>, prints {"ready": true} once it accepts connections, then one JSON line per
# message: the envelope, the message exactly as it came over the wire, and how Python's e-mail
# parser reads it (each header decoded, the plain-text body). Runs until its standard input
# closes.
import json
import sys
from email import message_from_bytes
from email.policy import default

from aiosmtpd.controller import Controller


class PrintEachMessage:
    async def handle_DATA(self, server, session, envelope):
        parsed = message_from_bytes(envelope.original_content, policy=default)
        text = parsed.get_body(preferencelist=("plain",))
        print(
            json.dumps(
                {
                    "from": envelope.mail_from,
                    "to": envelope.rcpt_tos,
                    "raw": envelope.original_content.decode("utf-8", "replace"),
                    "headers": [[name, str(value)] for name, value in parsed.items()],
                    "text": text.get_content() if text is not None else "",
                }
            ),
            flush=True,
        )
        return "250 Message accepted"


controller = Controller(PrintEachMessage(), hostname="127.0.0.1", port=int(sys.argv[1]))
controller.start()
print(json.dumps({"ready": True}), flush=True)
try:
    sys.stdin.read()
finally:
    controller.stop()
