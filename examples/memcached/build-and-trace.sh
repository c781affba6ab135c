#!/bin/sh
# build-and-trace.sh SONDE [WORKDIR]: builds memcached, a project with a
# --enable-dtrace build (memcached_dtrace.d, dtrace -h, then dtrace -G on
# its objects), with DTRACE=sonde, from Debian's source package, then
# traces its probes while a client sets and gets a key. Needs root (apt,
# tracing), the machine's own Debian archive (its deb lines are read as
# deb-src lines), gcc, make and libevent-dev (installed with apt-get when
# missing). test/memcached_test.go runs it (about a minute and a half on two
# cores).
set -eu
sonde=$(realpath "$1")
work=${2:-$(mktemp -d /tmp/sonde-memcached.XXXXXX)}
here=$(dirname "$(realpath "$0")")
mkdir -p "$work/lists/partial"
cd "$work"

# Debian's source package, through source lists of its own made from the
# machine's package sources (deb822 .sources files, or one-line .list
# files): the same archives, their deb-src side; the system's lists stay as
# they are
mkdir -p parts
for f in /etc/apt/sources.list.d/*.sources; do
	[ -e "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" > "parts/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -e "$f" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" > "parts/$(basename "$f").list"
done
apt="-q -o Dir::Etc::SourceList=/nonexistent -o Dir::Etc::SourceParts=$work/parts -o Dir::State::Lists=$work/lists"
apt-get $apt update > apt.log
apt-get $apt source memcached >> apt.log 2>&1
[ -e /usr/include/event2/event.h ] || apt-get -q install -y libevent-dev >> apt.log

cd memcached-*/
./configure --enable-dtrace DTRACE="$sonde" > configure.log
grep -q "^DTRACE_INSTRUMENT_OBJ_TRUE=''" config.log # sonde -G is used
make -j2 > make.log 2>&1
grep -n " -G " make.log

echo "probes: $("$sonde" -l -n 'memcached$target:::' -c ./memcached | tail -n +2 | wc -l)"

port=$((40000 + $$ % 20000))
"$sonde" -s "$here/commands.d" -c "./memcached -u root -l 127.0.0.1 -p $port -U 0" > trace.out 2> trace.err &
tracer=$!
python3 - "$port" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        break
    except ConnectionRefusedError:
        time.sleep(0.1)
s.sendall(b"set sonde-key 0 0 5\r\nhello\r\n"); s.recv(100)
s.sendall(b"get sonde-key\r\n"); s.recv(100)
s.sendall(b"get missing-key\r\n"); s.recv(100)
s.close()
PY
wait "$tracer"
cat trace.out
