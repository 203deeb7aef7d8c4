# Time per thread, channel and state from ovniemu's Paraver output:
#   awk -f ovni_prv.awk thread.pcf thread.prv
# prints "TASK.THREAD<TAB>channel<TAB>state<TAB>ns" for every non-zero
# state (Paraver's task and thread numbers: process and thread ordinals).
# Channels are found by their titles in the .pcf (the numbers changed
# between ovni versions): state (thread state), mpi, nosv-subsystem,
# nosv-tasktype, flush, kernel-cs, and mark:TITLE for the mark channels
# (100+).
BEGIN { FS = "\n" }
FILENAME ~ /\.pcf$/ {
	if ($0 ~ /^EVENT_TYPE/) { want = 1; next }
	if (want && $0 ~ /^0 [0-9]+ /) {
		split($0, w, " ")
		type = w[2]
		title = $0
		sub(/^0 [0-9]+ +/, "", title)
		sub(/ +$/, "", title)
		ch = ""
		if (title ~ /thread state|Execution state/) ch = "state"
		else if (title ~ /^MPI function/) ch = "mpi"
		else if (title ~ /nOS-V subsystem/) ch = "nosv-subsystem"
		else if (title ~ /nOS-V task type/) ch = "nosv-tasktype"
		else if (title ~ /^Flushing/) ch = "flush"
		else if (title ~ /^Kernel context switch/) ch = "kernel-cs"
		else if (type + 0 >= 100) ch = "mark:" title
		chan[type] = ch
		want = 0
		next
	}
	if ($0 ~ /^VALUES/) next
	if ($0 ~ /^[0-9]+ +[^ ]/ && type != "") {
		v = $0; sub(/ .*/, "", v)
		l = $0; sub(/^[0-9]+ +/, "", l); sub(/ +$/, "", l)
		label[type, v] = l
		next
	}
	if ($0 == "") type = ""
	next
}
/^#Paraver/ {
	end = $0; sub(/_ns.*/, "", end); sub(/.*:0*/, "", end)
	next
}
/^2:/ {
	n = split($0, f, ":")
	th = f[4] "." f[5]; t = f[6]
	for (i = 7; i < n; i += 2) {
		ty = f[i]; v = f[i + 1]
		if (chan[ty] == "") continue
		k = th SUBSEP ty
		if (k in since) dur[th, ty, cur[k]] += t - since[k]
		since[k] = t; cur[k] = v
	}
}
END {
	for (k in since) {
		split(k, a, SUBSEP)
		dur[a[1], a[2], cur[k]] += end - since[k]
	}
	for (k in dur) {
		split(k, a, SUBSEP)
		if (a[3] == 0 || dur[k] == 0) continue
		if (chan[a[2]] == "state" && a[3] == 3) continue # Dead
		l = label[a[2], a[3]]
		if (l == "") l = a[3]
		printf "%s\t%s\t%s\t%d\n", a[1], chan[a[2]], l, dur[k]
	}
}
