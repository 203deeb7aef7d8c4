# Time per thread (RANK.THREAD, 1-based), channel and state from `profconv dump` of a database
# converted from an ovni trace, in the form of ovni_prv.awk:
#   profconv dump DB | awk -f ovni_db.awk
# Every value of "time running" (and of "time not running" at the
# [cooling]/[warming] contexts, for channels of ACTIVE threads) goes to
# the nearest frame of each channel on its context's path:
#   state           Running, or Paused/Cooling/Warming at [paused] ...
#   mpi             frames of module "mpi", named without "()"
#   nosv-subsystem  frames of module "nosv", named as ovniemu's labels
#   nosv-tasktype   nosv task bodies (a paused task is no running task)
#   mark:TITLE      frames of module TITLE (marks; "TITLE N" is value N)
#   flush           "flushing events to disk"
#   kernel-cs       the values of "time off CPU" (KCO..KCI)
function q(s) { match(s, /"([^"\\]|\\.)*"/); return substr(s, RSTART + 1, RLENGTH - 2) }
BEGIN {
	sub_["execution as worker"] = "Thread: Worker"
	sub_["execution as delegate"] = "Thread: Delegate"
	sub_["allocating memory"] = "Memory: Allocating"
	sub_["freeing memory"] = "Memory: Freeing"
	sub_["submitting a task"] = "Scheduler: Submitting"
	sub_["hungry state (manual: VSh enters / VSf no longer hungry)"] = "Scheduler: Hungry"
	sub_["scheduler server blocking mode"] = "Scheduler: Serving"
	sub_["nosv_create()"] = "API: Create"
	sub_["nosv_destroy()"] = "API: Destroy"
	sub_["nosv_submit()"] = "API: Submit"
	sub_["nosv_pause()"] = "API: Pause"
	sub_["nosv_yield()"] = "API: Yield"
	sub_["nosv_waitfor()"] = "API: Waitfor"
	sub_["nosv_schedpoint()"] = "API: Scheduling point"
	sub_["nosv_attach()"] = "API: Attach"
	sub_["nosv_detach()"] = "API: Detach"
	sub_["nosv_mutex_lock()"] = "API: Mutex lock"
	sub_["nosv_mutex_trylock()"] = "API: Mutex trylock"
	sub_["nosv_mutex_unlock()"] = "API: Mutex unlock"
	sub_["nosv_barrier_wait()"] = "API: Barrier wait"
	sub_["nosv_cond_wait()"] = "API: Cond wait"
	sub_["nosv_cond_signal()"] = "API: Cond signal"
	sub_["nosv_cond_broadcast()"] = "API: Cond broadcast"
	sub_["nosv_join()"] = "API: Join"
	sub_["nosv_join_all()"] = "API: Join all"
	sub_["nosv_wait()"] = "API: Wait"
	sub_["nosv_wait_all()"] = "API: Wait all"
	sub_["[task paused]"] = "Task: In body"
	known["ovni"] = known["mpi"] = known["nosv"] = known["nanos6"] = 1
	known["nodes"] = known["tampi"] = known["kernel"] = known["openmp"] = 1
}
/^M[0-9]+ "/ { mod[substr($1, 2)] = q($0); next }
/^f[0-9]+ "/ {
	id = substr($1, 2); fname[id] = q($0)
	m = $0; sub(/.* module=M/, "", m); sub(/ .*/, "", m); fmod[id] = m
	next
}
/^m[0-9]+ "/ { metric[substr($1, 2)] = q($0); next }
/^p[0-9]+ \[/ {
	r = $0; sub(/.*\[RANK /, "", r); sub(/[^0-9].*/, "", r)
	t = $0; sub(/.*\[THREAD /, "", t); sub(/[^0-9].*/, "", t)
	tid[substr($1, 2)] = (r + 1) "." (t + 1)
	next
}
/^c[0-9]+ parent=c/ {
	id = substr($1, 2); p = $2; sub(/parent=c/, "", p); parent[id] = p
	fn[id] = ""
	if (match($0, / fn=f[0-9]+/)) fn[id] = substr($0, RSTART + 5, RLENGTH - 5)
	next
}
/^p[0-9]+ c[0-9]+ m[0-9]+ / {
	pr = substr($1, 2); c = substr($2, 2); mt = metric[substr($3, 2)]; v = $4
	if (mt == "time off CPU") { # the kernel's channel
		out[tid[pr], "kernel-cs", "Context switch: Out of the CPU"] += v
		next
	}
	if (mt != "time running" && mt != "time not running") next
	st = "Running"
	f = fn[c]; leaf = fname[f]
	if (mt == "time not running") {
		st = leaf; gsub(/[][]/, "", st)
		st = toupper(substr(st, 1, 1)) substr(st, 2)
	}
	out[tid[pr], "state", st] += v
	running = mt == "time running"
	active = running || st == "Cooling" || st == "Warming"
	if (!active) next
	# nearest frame of each channel, from the leaf up (the state
	# context itself, if any, is no frame of a channel)
	done_mpi = done_sub = done_tt = done_fl = 0
	delete done_mark
	for (x = (running ? c : parent[c]); x != "" && x != 0; x = parent[x]) {
		f = fn[x]
		if (f == "") continue
		mo = mod[fmod[f]]; nm = fname[f]
		if (mo == "mpi" && !done_mpi) {
			done_mpi = 1
			if (running) { l = nm; sub(/\(\)$/, "", l); out[tid[pr], "mpi", l] += v }
		}
		if (mo == "nosv" && !done_sub) {
			done_sub = 1
			l = (nm in sub_) ? sub_[nm] : "Task: In body"
			out[tid[pr], "nosv-subsystem", l] += v
		}
		if (mo == "nosv" && !done_tt && (nm == "[task paused]" || !(nm in sub_))) {
			done_tt = 1
			if (running && nm != "[task paused]") out[tid[pr], "nosv-tasktype", nm] += v
		}
		if (mo == "ovni" && nm == "flushing events to disk" && !done_fl) {
			done_fl = 1
			out[tid[pr], "flush", "Flushing"] += v
		}
		if (!(mo in known) && !(mo in done_mark)) {
			done_mark[mo] = 1
			# a value without a label is "TITLE VALUE" here, VALUE
			# in ovniemu's Paraver output
			if (index(nm, mo " ") == 1 && substr(nm, length(mo) + 2) ~ /^-?[0-9]+$/)
				nm = substr(nm, length(mo) + 2)
			if (running) out[tid[pr], "mark:" mo, nm] += v
		}
	}
}
END {
	for (k in out) {
		split(k, a, SUBSEP)
		if (out[k]) printf "%s\t%s\t%s\t%d\n", a[1], a[2], a[3], out[k]
	}
}
