"""One pass of the kernel stage, inside a guest (tests/kernels/guest.sh runs it as root or as a
user): the sandbox's decision from `tandem doctor --json` against the expected row, then the
attacks of attack.sh through `tandem exec --json`, driven by the mock model and auto-approved by
`--allow "sh attack.sh"`, each wall that should be up checked from outside as well.

    python3 pass.py NAME WORKDIR      (env: KT_TANDEM, KT_MOCK, KT_EXPECT, KT_ATTACK)

KT_EXPECT is the row run.sh gives: `unasked=true;files=a,b;network=...;processes=...;abi=N`, a
list empty when nothing is named, `*` for "not checked". Prints one line per case on stdout:
`KT ok NAME CASE` or `KT FAIL NAME CASE: WHY`, and `KT info NAME ...` lines for the log.
"""

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import termios
import threading
import time

NAME, WORK = sys.argv[1], sys.argv[2]
TANDEM, MOCK, ATTACK = os.environ["KT_TANDEM"], os.environ["KT_MOCK"], os.environ["KT_ATTACK"]
EXPECT = dict(
    item.split("=", 1) for item in os.environ["KT_EXPECT"].split(";") if item.strip()
)


def say(line):
    print(line, flush=True)


def case(name, ok, why=""):
    say(f"KT ok {NAME} {name}" if ok else f"KT FAIL {NAME} {name}: {why}"[:600])


def info(text):
    for line in text.splitlines():
        say(f"KT info {NAME} {line}"[:400])


def oneline(text):
    return " | ".join(line.strip() for line in text.strip().splitlines() if line.strip())


# The home lies outside every temp directory (a tmpfs guest.sh mounts on /run/kt-home), so a write
# there is refused by every files wall; WORK is under /tmp, which commands share with the host
# without namespaces (a documented gap of that fallback).
home, ws = os.path.join("/run/kt-home", os.path.basename(WORK)), os.path.join(WORK, "ws")
os.makedirs(home)
os.makedirs(ws)
env = {
    "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
    "HOME": home,
    "USER": "kt",
    "LANG": "C.UTF-8",
    "TERM": "dumb",
}
unasked = EXPECT.get("unasked", "*")

# 1. The decision.
def doctor(*flags):
    try:
        return subprocess.run(
            [TANDEM, "doctor", *flags, "--root", ws, "--base-url", "http://127.0.0.1:9/v1"],
            env=env, cwd=ws, capture_output=True, text=True, timeout=60,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([], "timeout", "", "timed out after 60s")


began = time.monotonic()
answer = doctor("--json")
try:
    sandbox = json.loads(answer.stdout)["sandbox"]
except (ValueError, KeyError, TypeError):
    sandbox = None
    why = oneline(answer.stderr or answer.stdout)[:300]
    case("decision", False, f"no sandbox JSON from doctor --json (exit {answer.returncode}): {why}")
    # Today's text, for the log.
    text = doctor().stdout.splitlines()
    info("doctor (text): " + "\n".join(l for l in text if l.startswith(("Sandbox:", "  up", "  DOWN"))))
info(f"doctor: {time.monotonic() - began:.1f}s")
if sandbox is not None:
    info("doctor: " + json.dumps(sandbox, separators=(",", ":")))
    wrong = []
    for key, field in [("files", "files"), ("network", "network"), ("processes", "processes")]:
        want = EXPECT.get(key, "*")
        if want == "*":
            continue
        want_set = sorted(w.strip() for w in want.split(",") if w.strip())
        got = sandbox.get(field)
        if not isinstance(got, list) or sorted(got) != want_set:
            wrong.append(f"{field} {got} (want {want_set})")
    if unasked != "*" and sandbox.get("unasked") != (unasked == "true"):
        wrong.append(f"unasked {sandbox.get('unasked')} (want {unasked})")
    abi = EXPECT.get("abi", "*")
    if abi != "*" and str(sandbox.get("landlockAbi")) != abi:
        wrong.append(f"landlockAbi {sandbox.get('landlockAbi')} (want {abi})")
    case("decision", not wrong, "; ".join(wrong))
    # How commands' writes are recorded (issue 31): an overlay wherever the mount namespace is
    # up (the doctor's probe mounts one in a user namespace, with userxattr), else a snapshot.
    files = EXPECT.get("files", "*")
    if files != "*":
        # The guests' initramfs loads no modules: overlayfs is there only if built in.
        overlay = "overlay" in open("/proc/filesystems").read()
        want = (
            "overlay" if "mount namespace" in files and overlay
            else ("snapshot" if files else "none")
        )
        info(f"overlayfs in /proc/filesystems: {overlay}")
        writes = json.loads(answer.stdout).get("commandWrites") or {}
        info("commandWrites: " + json.dumps(writes, separators=(",", ":")))
        case("command writes", writes.get("way") == want,
             f"commandWrites {writes} (want {want})")

# 2. The attacks, in one exec turn: each command a tool call of the scripted model.
shutil.copy(ATTACK, os.path.join(ws, "attack.sh"))
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
listener.setblocking(False)
port = listener.getsockname()[1]
# Writable places outside the workspace (all tmpfs): the home, refused by every files wall; next to
# the workspace under /tmp, and /dev/shm, temp directories made private by the mount namespace and
# shared without one.
private_temp = "mount namespace" in EXPECT.get("files", "")
probes = [os.path.join(home, "outside-probe")]
if private_temp:
    probes += [os.path.join(WORK, "outside-probe"), f"/dev/shm/kt-probe-{os.getpid()}"]
sleep_s = 7_000_000 + os.getpid() % 100_000 * 10
sleeps = [[str(sleep_s + i).encode()] for i in range(3)]


def processes():
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                yield pid, open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            except OSError:
                pass

try:
    hostname_before = open("/proc/sys/kernel/hostname").read().strip()
except OSError:
    hostname_before = None
# One command makes every attack (one sandbox launch: they are slow under TCG), its output in
# sections `== NAME`; the leftovers are looked for after the turn.
attacks = ["caps", "inside", "outside", "net", "tty", "mknod", "hostname", "spawn", "extra"]
# A second folder of the session (`--add-dir`), and one beside it that is no root, in the home:
# outside every temp directory, so only the walls' grant of the added folder lets a write in.
extra, sibling = os.path.join(home, "extra"), os.path.join(home, "sibling")
os.makedirs(extra)
os.makedirs(sibling)
with open(os.path.join(extra, "in.txt"), "w") as f:
    f.write("from the added folder\n")
command = (f"sh attack.sh all {port} {NAME.replace('/', '-')} {sleep_s} {extra} {sibling} "
           f"{' '.join(probes)}")
scenario = {
    "responses": [
        {"toolCalls": [{"name": "execute_command", "arguments": {"command": command}}]},
        {"text": "Done."},
    ]
}
with open(os.path.join(WORK, "scenario.json"), "w") as f:
    json.dump(scenario, f)
mock = subprocess.Popen(
    [MOCK, "--scenario", os.path.join(WORK, "scenario.json")],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
)
ready = mock.stdout.readline().strip()
if not ready.startswith("listening on "):
    case("exec", False, f"mock-model did not start: {ready}")
    say(f"KT done {NAME}")
    sys.exit(0)
base_url = ready.split(" ", 2)[2]

# tandem exec gets a terminal (a pty made its controlling terminal, as in a user's shell): the
# `tty` attack then has a /dev/pts/N of this user's to reach for.
master, slave = os.openpty()
pts = os.ttyname(slave)


def controlling_terminal():
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


terminal = bytearray()


def drain():
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            return
        if not chunk:
            return
        terminal.extend(chunk)


events_path, stderr_path = os.path.join(WORK, "events.jsonl"), os.path.join(WORK, "exec.stderr")
t = time.monotonic()
with open(events_path, "w") as events_file, open(stderr_path, "w") as stderr_file:
    exec_proc = subprocess.Popen(
        [TANDEM, "exec", "Run the checks", "--json", "--root", ws, "--base-url", base_url,
         "--model", "mock-coder", "--allow", "sh attack.sh", "--add-dir", extra],
        stdin=slave, stdout=events_file, stderr=stderr_file, env=env, cwd=ws,
        preexec_fn=controlling_terminal,
    )
    drainer = threading.Thread(target=drain, daemon=True)  # after the fork: preexec_fn and threads
    drainer.start()
    try:
        code = exec_proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        exec_proc.kill()
        code = "timeout"
took = time.monotonic() - t
os.close(slave)
drainer.join(timeout=10)  # the terminal's last bytes; ends when no one holds the pty open
mock.kill()
events = []
for line in open(events_path):
    try:
        events.append(json.loads(line))
    except ValueError:
        pass
stderr_text = open(stderr_path).read()
info(f"exec: exit {code} in {took:.1f}s ({t - began:.1f}s after the pass began); terminal {pts}")
if code == "timeout" or not any(e.get("type") == "turnEnded" for e in events):
    case("exec", False, f"exec exit {code}, no turnEnded; stderr: {oneline(stderr_text)[:300]}")

# The command's approval and result, and its output cut into the attacks' sections.
call = {"approval": None, "result": None}
for e in events:
    if e.get("type") in ("approval", "toolResult"):
        call["approval" if e["type"] == "approval" else "result"] = e
sections = {}
if call["result"] is not None:
    current = None
    for line in (call["result"].get("output") or "").splitlines():
        if line.startswith("== "):
            current = line[3:].strip()
            sections[current] = ""
        elif current is not None:
            sections[current] += line + "\n"


def output_of(attack):
    return sections.get(attack)


def ran(attack):
    out = output_of(attack)
    return out is not None and f"ran {attack}" in out


def not_run(attack):
    a = call["approval"]
    if a is None or a.get("decision") != "accept":
        decided = f"{a.get('decision')} by {a.get('decidedBy')}" if a else "no approval event"
        return f"refused before it ran ({decided})"
    whole = (call["result"] or {}).get("output") or "(no result)"
    return f"did not run: {oneline(output_of(attack) or whole)[:250]}"


if call["approval"] and call["approval"].get("decision") == "accept":
    for attack in attacks:
        info(f"{attack}: {oneline(output_of(attack) or '(no section)')[:300]}")

# Did the allow-listed command run unasked?
decided = call["approval"] and (call["approval"].get("decision"), call["approval"].get("decidedBy"))
if unasked == "true":
    case("unasked", decided == ("accept", "policy"), f"the allow-listed command: {decided}")
elif unasked == "false":
    # Nothing can confine writes: every command asks, and exec refuses what asks.
    case("unasked", decided and decided[0] == "reject" and not os.path.exists(os.path.join(ws, "in.txt")),
         f"the allow-listed command ran unasked with no wall confining writes: {decided}")

if unasked != "false":
    # The walls, each from outside as well as from the command's own words.
    if ran("caps"):
        eff = [l.split()[1] for l in output_of("caps").splitlines() if l.startswith("CapEff:")]
        case("capabilities", eff == ["0000000000000000"], f"inside: {oneline(output_of('caps'))}")
    else:
        case("capabilities", False, not_run("caps"))
    inside = os.path.join(ws, "in.txt")
    case("write inside", ran("inside") and os.path.exists(inside) and open(inside).read() == "inside\n",
         not_run("inside") if not ran("inside") else "in.txt missing or wrong")
    if ran("outside"):
        leaked = [p for p in probes if os.path.exists(p)]
        case("write outside", not leaked, f"wrote {leaked}: {oneline(output_of('outside'))}")
    else:
        case("write outside", False, not_run("outside"))
    try:
        conn, _ = listener.accept()
        accepted_conn = True
        conn.close()
    except BlockingIOError:
        accepted_conn = False
    if ran("net"):
        case("network", not accepted_conn and "CONNECTED" not in output_of("net"),
             f"reached 127.0.0.1:{port} outside: {oneline(output_of('net'))}")
    else:
        case("network", False, not_run("net"))
    if ran("tty"):
        # Another pass's command may write here too (they run side by side): this pass's own.
        leaked = f"KT-TTY-LEAK {NAME.replace('/', '-')}".encode() in bytes(terminal)
        case("terminal", not leaked and "WROTE" not in output_of("tty"),
             f"{'reached ' + pts + '; ' if leaked else ''}{oneline(output_of('tty'))}")
    else:
        case("terminal", False, not_run("tty"))
    if ran("mknod"):
        case("mknod", "MADE" not in output_of("mknod") and not os.path.exists(os.path.join(ws, "blk")),
             "made a block device in the workspace")
    else:
        case("mknod", False, not_run("mknod"))
    if ran("hostname"):
        try:
            hostname_after = open("/proc/sys/kernel/hostname").read().strip()
        except OSError:
            hostname_after = None
        case("hostname", "RENAMED" not in output_of("hostname") and hostname_after == hostname_before,
             f"sethostname went through (now {hostname_after!r})")
    else:
        case("hostname", False, not_run("hostname"))
    if ran("spawn"):
        # The launcher ends what a command started before it exits, and the turn ends after.
        alive = [pid for pid, cmd in processes() if cmd[:1] == [b"sleep"] and cmd[1:2] in sleeps]
        case("leftovers", not alive, f"the command's sleeps outlived it (pids {alive})")
    else:
        case("leftovers", False, not_run("spawn"))
    if ran("extra"):
        # The added folder: read, and written through the capture (applied after the command,
        # recorded for undo: named in the result); the folder beside it: refused.
        out = output_of("extra")
        written = os.path.join(extra, "written.txt")
        result = (call["result"] or {}).get("output") or ""
        case("added folder",
             "read from the added folder" in out
             and os.path.exists(written) and open(written).read() == "from-command\n"
             and "written.txt" in result
             and not os.path.exists(os.path.join(sibling, "leak.txt")),
             f"{oneline(out)}; written: {os.path.exists(written)}; "
             f"leaked: {os.path.exists(os.path.join(sibling, 'leak.txt'))}")
    else:
        case("added folder", False, not_run("extra"))
    for pid, cmd in processes():  # whatever leaked goes before the next pass
        if cmd[:1] == [b"sleep"] and cmd[1:2] in sleeps:
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass

say(f"KT done {NAME}")
