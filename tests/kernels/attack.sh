# The attacks a sandboxed command makes in the kernel stage (tests/kernels/pass.py copies this
# file into the workspace and the model asks to run `sh attack.sh all ARGS`, auto-approved by
# `--allow "sh attack.sh"`). Each attack prints what it managed, then `ran NAME`: a case whose
# attack did not run proves nothing, and pass.py fails it.
attack=$1
shift
case $attack in
  all) # $1 port, $2 tag, $3 sleep length, $4 the added folder, $5 one beside it, then the
    # outside files: every attack, in sections
    port=$1 tag=$2 sleeps=$3 extra=$4 sibling=$5
    shift 5
    for a in caps inside "outside $*" "net $port" "tty $tag" mknod hostname "spawn $sleeps" \
      "extra $extra $sibling"; do
      echo "== ${a%% *}"
      # shellcheck disable=SC2086 # the attack's name and arguments, split on purpose
      sh attack.sh $a
    done
    exit 0
    ;;
  caps)
    grep -E '^Cap(Eff|Prm|Inh|Bnd|Amb):' /proc/self/status
    ;;
  inside)
    echo inside >in.txt || exit 1
    ;;
  outside) # $@: files in writable places outside the workspace
    for f in "$@"; do
      if (echo x >"$f") 2>/dev/null; then echo "WROTE $f"; else echo "refused $f"; fi
    done
    ;;
  net) # $1: a port on 127.0.0.1 the test listens on, outside the sandbox
    if bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; then echo CONNECTED; else echo refused; fi
    ;;
  tty) # $1: this pass's name, in what it writes
    for p in /dev/tty /dev/pts/*; do
      case $p in */ptmx) continue ;; esac
      [ -e "$p" ] || continue
      if (printf 'KT-TTY-LEAK %s\n' "$1" >"$p") 2>/dev/null; then echo "WROTE $p"; else echo "refused $p"; fi
    done
    ;;
  extra) # $1: the session's added folder (--add-dir), $2: a folder beside it, never added
    printf 'read %s\n' "$(cat "$1/in.txt")"
    if (echo from-command >"$1/written.txt") 2>/dev/null; then echo "wrote $1"; else echo "REFUSED $1"; fi
    if (echo x >"$2/leak.txt") 2>/dev/null; then echo "WROTE $2"; else echo "refused $2"; fi
    ;;
  mknod)
    if mknod blk b 8 0 2>/dev/null; then echo MADE; else echo refused; fi
    ;;
  hostname)
    if hostname kt-renamed 2>/dev/null; then echo RENAMED; else echo refused; fi
    ;;
  spawn) # $1: a sleep length no other process uses, to find leftovers by (pass.py looks after the turn)
    setsid sh -c "echo > started.1; exec sleep $1" >/dev/null 2>&1 </dev/null &
    nohup sh -c "echo > started.2; exec sleep $(($1 + 1))" >/dev/null 2>&1 </dev/null &
    (sh -c "echo > started.3; exec sleep $(($1 + 2))" >/dev/null 2>&1 </dev/null &)
    i=0
    while [ ! -e started.1 ] || [ ! -e started.2 ] || [ ! -e started.3 ]; do
      i=$((i + 1))
      [ $i -lt 200 ] || { echo "the sleeps did not start"; exit 1; }
      sleep 0.05
    done
    ;;
  *)
    echo "unknown attack $attack"
    exit 2
    ;;
esac
echo "ran $attack"
