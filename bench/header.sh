# bench/header.sh: sourced by the bench scripts; bench_header prints the
# lines that say where a run was made (commit, CPU, load), after the
# script's own "- command:" line.
bench_header() {
	local rev
	if rev=$(git rev-parse --short HEAD 2>/dev/null); then
		git diff --quiet HEAD -- . 2>/dev/null || rev="$rev, with uncommitted changes in the tree"
		echo "- commit: $rev"
	fi
	echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs online"
	echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
}
