#!/usr/bin/perl
# Writes the hand-made ovni traces of testdata/ovni (see README there):
#   cd testdata/ovni && perl make-fixtures.pl
# Every trace is layout L3 (loom.L/proc.PID/thread.TID/stream.{obs,json}),
# little-endian, events built field by field as libovni writes them.
use strict;
use warnings;
use File::Path qw(make_path remove_tree);

# an event: MCV, clock, payload bytes, jumbo data (optional)
sub ev {
	my ($mcv, $t, $pl, $jumbo) = @_;
	$pl //= '';
	my $n = length $pl;
	die "payload of 1 byte" if $n == 1;
	my $flags = defined $jumbo ? 0x10 : 0;
	# a jumbo event's payload is the length of its data, unless given
	$pl = pack('V', length $jumbo) if defined $jumbo && $pl eq '';
	$n = length $pl;
	return pack('C', $flags | ($n ? $n - 1 : 0)) . $mcv . pack('Q<', $t) .
	       $pl . ($jumbo // '');
}
sub hdr { "ovni" . pack('V', 1) }
sub ohx { ev('OHx', $_[0], pack('l<l<Q<', 0, -1, 0)) }
# a thread's stream.json; every loom gives its CPUs (ovni.loom_cpus,
# as libovni writes them: ovniemu refuses a loom without CPUs), CPU 0
# unless $cpus (the number of CPUs) or $extra says
sub json {
	my ($tid, $extra, $cpus) = @_;
	$extra //= '';
	$extra .= ', "loom_cpus": [' . join(', ', map { qq({"index": $_, "phyid": $_}) }
					  0 .. ($cpus // 1) - 1) . ']'
		unless $extra =~ /loom_cpus/;
	return qq({"version": 3, "ovni": {"lib": {"version": "1.14.0"}, ) .
	       qq("part": "thread", "tid": $tid, "pid": 100, "loom": "host.fix", ) .
	       qq("app_id": 1, "require": {"ovni": "1.1.0", "mpi": "1.0.0", ) .
	       qq("nosv": "2.0.0", "nanos6": "1.0.0", "openmp": "1.1.0", ) .
	       qq("kernel": "1.0.0"}$extra, "finished": 1}}\n);
}
sub trace {
	my ($dir, %threads) = @_;
	remove_tree($dir);
	for my $tid (sort keys %threads) {
		my $d = "$dir/loom.host.fix/proc.100/thread.$tid";
		make_path($d);
		my ($obs, $js) = @{$threads{$tid}};
		open my $f, '>:raw', "$d/stream.obs" or die;
		print $f $obs;
		close $f;
		open $f, '>', "$d/stream.json" or die;
		print $f $js // json($tid);
		close $f;
	}
}
my $marks = qq(, "mark": {"7": {"title": "Step", "chan_type": "stack", ) .
	    qq("labels": {"1": "init", "2": "compute"}}});
# good: two threads, MPI inside marks, a nosv task type (jumbo) created
# on thread 11 and executed on thread 12, a pause of the thread
trace('good',
	11 => [hdr() . ohx(1000) .
	       ev('VYc', 1100, '', pack('V', 7) . "my_task\0") .
	       ev('OM[', 1200, pack('q<l<', 1, 7)) .
	       ev('VTc', 1300, pack('VV', 5, 7)) .
	       ev('MUi', 1400) . ev('MUI', 1700) .
	       ev('OM]', 2000, pack('q<l<', 1, 7)) .
	       ev('OM[', 2000, pack('q<l<', 2, 7)) .
	       ev('OHp', 2500) . ev('OHr', 3000) .
	       ev('OM]', 3500, pack('q<l<', 2, 7)) . ev('OHe', 4000),
	       json(11, $marks)],
	12 => [hdr() . ohx(1500) . ev('VHw', 1600) .
	       ev('VTx', 1800, pack('VV', 5, 0)) .
	       ev('MS[', 2100) . ev('MS]', 2400) .
	       ev('VTe', 2600, pack('VV', 5, 0)) .
	       ev('VHW', 2900) . ev('OHe', 3100)]);
# more: the other kinds of events on one thread (values in README):
# nanos6 task types and pause/resume, OpenMP worksharing named by a
# type, OM= (set mark), cooling/warming, off-CPU, an unordered region
# whose clock goes back, and an event of an unknown model letter
trace('more', 31 => [hdr() . ohx(100) .
	ev('6Yc', 100, '', pack('V', 3) . "solver\0") .
	ev('6Tc', 110, pack('VV', 9, 3)) .
	ev('6Tx', 200, pack('V', 9)) .
	ev('6Tp', 300, pack('V', 9)) . ev('6Tr', 350, pack('V', 9)) .
	ev('6Te', 400, pack('V', 9)) .
	ev('POc', 400, '', pack('V', 4) . "loop_a\0") .
	ev('PQx', 500, pack('V', 4)) . ev('PQe', 600, pack('V', 4)) .
	ev('OM=', 600, pack('q<l<', 1, 7)) . ev('OM=', 700, pack('q<l<', 2, 7)) .
	ev('OM=', 800, pack('q<l<', 0, 7)) .
	ev('OHc', 800) . ev('OHp', 850) . ev('OHw', 950) . ev('OHr', 1000) .
	ev('KCO', 1100) . ev('KCI', 1300) .
	ev('OU[', 1300) . ev('MUi', 1400) . ev('MUI', 1350) . ev('OU]', 1400) .
	ev('Zzz', 1450) . ev('OHe', 1500), json(31, $marks)]);
# marks: mark types are channels of their own in ovniemu, so their pops
# and sets need not nest with other frames (values in README)
my $mk = sub { ev($_[0], $_[1], pack('q<l<', $_[2], $_[3])) };
trace('marks', 61 => [hdr() . ohx(100) .
	$mk->('OM[', 200, 1, 7) . $mk->('OM[', 300, 5, 8) . ev('MUi', 400) .
	$mk->('OM]', 500, 1, 7) . ev('MUI', 600) . $mk->('OM=', 650, 3, 9) .
	$mk->('OM[', 700, 2, 7) . $mk->('OM=', 750, 4, 9) .
	$mk->('OM]', 800, 5, 8) . $mk->('OM]', 850, 2, 7) .
	$mk->('OM=', 900, 3, 9) . ev('OHe', 1000),
	json(61, qq(, "mark": {"7": {"title": "Step", "chan_type": "stack", ) .
		 qq("labels": {"1": "init", "2": "compute"}}, ) .
		 qq("8": {"title": "Phase", "chan_type": "stack"}, ) .
		 qq("9": {"title": "Iter", "chan_type": "single"}}, ) .
		 qq("loom_cpus": [{"index": 0, "phyid": 0}]))]);
# multi: two looms (hosts alpha and beta), three processes with MPI
# ranks in their metadata, four threads, clock offsets for beta; each
# thread is in MPI_Send for a time of its own (values in README)
remove_tree('multi');
for my $t (['alpha.app', 100, 11, 0, 0, 1000, 1150],
	   ['alpha.app', 100, 12, 0, 1, 1000, 1200],
	   ['alpha.app', 101, 13, 1, 2, 1000, 1300],
	   ['beta.app', 200, 21, 2, 0, 600, 1000]) {
	my ($loom, $pid, $tid, $rank, $cpu, $t0, $t1) = @$t;
	my $d = "multi/ovni/loom.$loom/proc.$pid/thread.$tid";
	make_path($d);
	open my $f, '>:raw', "$d/stream.obs" or die;
	print $f hdr() . ev('OHx', $t0, pack('l<l<Q<', $cpu, -1, 0)) .
		 ev('MS[', $t0 + 100) . ev('MS]', $t1) .
		 ev('OHe', $t1 + 100);
	close $f;
	(my $js = json($tid, qq(, "rank": $rank, "nranks": 3),
		       $loom eq 'alpha.app' ? 3 : 1)) =~
		s/"pid": 100, "loom": "host.fix"/"pid": $pid, "loom": "$loom"/;
	open $f, '>', "$d/stream.json" or die;
	print $f $js;
	close $f;
}
open my $co, '>', 'multi/ovni/clock-offsets.txt' or die;
print $co "rank hostname offset_median offset_mean offset_std\n" .
	  "0 alpha 0 0 0\n2 beta 500 500.2 0.4\n";
close $co;
# draft: a stream as the draft specification shows them, without the
# "ovni" header: it starts with the OHx event
trace('draft', 41 => [ohx(100) . ev('MUi', 200) . ev('MUI', 300) . ev('OHe', 400)]);
# l0/ and l1/: the same stream in layouts L0 (thread.TID, libovni 1.0)
# and L1 (thread.TID.obs), metadata.json v1 with 1.0's model_version
# string; M is 1.0's OpenMP model in L0 (MUi/MUI are not its events: a
# warning each; MT[..MT] is its task mode) and MPI in L1 (MPI_Init
# 200..300, MPI_Test 300..350)
for my $l (0, 1) {
	my $d = "l$l/loom.host.fix/proc.100";
	remove_tree("l$l");
	make_path($d);
	open my $f, '>', "$d/metadata.json" or die;
	print $f qq({"version": 1, "model_version": "O1 V1 T1 M1 D1 K1 61", ) .
		 qq("app_id": 1, "cpus": [{"index": 0, "phyid": 0}]}\n);
	close $f;
	open $f, '>:raw', "$d/thread.51" . ($l ? '.obs' : '') or die;
	print $f hdr() . ohx(100) . ev('MUi', 200) . ev('MUI', 300) .
		 ev('MT[', 300) . ev('MT]', 350) . ev('OHe', 400);
	close $f;
}
# cut: the stream ends inside MPI_Recv (no OHe): closed with a warning
trace('cut', 21 => [hdr() . ohx(100) . ev('MR[', 150) . ev('OB.', 400)]);
# split: what a reader whose share starts at thread 12 or 13 (-j2, -j3,
# profconv-mpi) must know of the tasks from the threads before it.
# Thread 11 defines nosv type 7 "first_label" and creates tasks 5 and
# 6 of it; thread 12 defines type 7 again as "second_label" (the first
# definition holds) and runs task 5; thread 13 runs task 6. Both run
# as "first_label", whatever the share. Threads 11 and 13 both have an
# event of no known model (Zzz): one warning, thread 11's.
trace('split',
	11 => [hdr() . ohx(100) . ev('Zzz', 105) .
	       ev('VYc', 110, '', pack('V', 7) . "first_label\0") .
	       ev('VTc', 120, pack('VV', 5, 7)) .
	       ev('VTc', 130, pack('VV', 6, 7)) . ev('OHe', 200)],
	12 => [hdr() . ohx(100) .
	       ev('VYc', 110, '', pack('V', 7) . "second_label\0") .
	       ev('VTx', 150, pack('VV', 5, 0)) .
	       ev('VTe', 180, pack('VV', 5, 0)) . ev('OHe', 200)],
	13 => [hdr() . ohx(100) . ev('Zzz', 105) .
	       ev('VTx', 140, pack('VV', 6, 0)) .
	       ev('VTe', 170, pack('VV', 6, 0)) . ev('OHe', 200)]);
# the damaged ones
make_path('bad');
trace('bad/truncated-event', 1 => [hdr() . ohx(10) . substr(ev('MUi', 20), 0, 7)]);
trace('bad/wrong-magic', 1 => ["ovnj" . pack('V', 1) . ohx(10)]);
trace('bad/wrong-version', 1 => ["ovni" . pack('V', 2) . ohx(10)]);
trace('bad/payload-past-end', 1 => [hdr() . ohx(10) .
	substr(ev('OM[', 20, pack('q<l<', 1, 0)), 0, 16)]);
trace('bad/metadata-not-json', 1 => [hdr() . ohx(10),
	qq({"version": 3, "ovni": {"tid": 1, "pid": 100,\n)]);
trace('bad/metadata-no-tid', 1 => [hdr() . ohx(10),
	qq({"version": 3, "ovni": {"pid": 100, "app_id": 1}}\n)]);
trace('bad/clock-backwards', 1 => [hdr() . ohx(1000) . ev('MUi', 1500) .
	ev('MUI', 1400) . ev('OHe', 2000)]);
trace('bad/jumbo-4gb', 1 => [hdr() . ohx(10) .
	ev('VYc', 20, pack('V', 0xffffffff), pack('V', 1) . "t\0")]);
trace('bad/empty-stream', 1 => ['']);
# a model newer than profconv knows (nosv 2.7.0 in ovni 1.14): ovniemu
# says "unsupported nosv model version (want 2.9.0, have 2.7.0)"
for my $v (['model-minor-newer', '2.9.0'], ['model-major', '3.0.0']) {
	(my $j = json(1)) =~ s/"nosv": "2\.0\.0"/"nosv": "$v->[1]"/;
	trace("bad/$v->[0]", 1 => [hdr() . ohx(10) . ev('OHe', 20), $j]);
}
trace('bad/mismatched-exit', 1 => [hdr() . ohx(10) . ev('MUi', 20) .
	ev('MCB', 30) . ev('OHe', 40)]);
trace('bad/mark-pop-value', 1 => [hdr() . ohx(10) . $mk->('OM[', 20, 1, 7) .
	$mk->('OM]', 30, 2, 7) . ev('OHe', 40), json(1, $marks)]);
# a loom whose process directory holds no stream (git keeps no empty
# directories: a stray file stands in)
remove_tree('bad/no-streams');
make_path('bad/no-streams/loom.host.fix/proc.100');
open my $f, '>', 'bad/no-streams/loom.host.fix/proc.100/notes.txt' or die;
print $f "no thread.TID here\n";
close $f;
