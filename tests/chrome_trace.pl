#!/usr/bin/perl
# chrome_trace.pl TRACE.json DUMP: checks a Chrome trace that profconv
# wrote against `profconv dump` of the same input. The file must parse
# as JSON (strict UTF-8); threads are numbered in the drawing order,
# (rank, the process's other ids, the thread's ids), processes so too
# (speedscope draws them by pid and tid); per thread: its name is the
# profile's thread-level ids with a thread's real id (TID), its
# process's the others with a rank's real id (PID), and its busy time (the union of its
# complete events) equals the time its trace spends in a context other
# than the root, its first event starts at the first sample and none
# ends after the last, to the nanosecond (times are read as written: the
# microseconds' three decimals are the nanoseconds). Events of one
# thread nest: each starts and ends within the one around it. Prints
# "threads N, events N" and exits 0, or says the first difference.
use strict;
use warnings;
use JSON::PP;

my ($json, $dump) = @ARGV;
die "usage: chrome_trace.pl TRACE.json DUMP\n" unless defined $dump;
open(my $fh, '<:raw', $json) or die "$json: $!\n";
my $text = do { local $/; <$fh> };
close $fh;
my $doc = eval { JSON::PP->new->utf8->decode($text) };
die "$json: not JSON: $@" unless $doc;
die "$json: no traceEvents array\n" unless ref $doc->{traceEvents} eq 'ARRAY';

# the trace as dump has it: per profile, [time, ctx] in order; per
# context its depth in frames (functions, entries, code reached by a
# call: the frames every stack-shaped output makes)
my (%samples, %ids, $cur, @depth);
$depth[0] = 0;
open(my $dh, '<', $dump) or die "$dump: $!\n";
while (<$dh>) {
	if (/^c(\d+) parent=c(\d+) (\w+) (\w+)/) {
		my $frame = $3 eq 'call' || $4 eq 'function' || $4 eq 'entry';
		$depth[$1] = $depth[$2] + ($frame ? 1 : 0);
	} elsif (/^p(\d+) ((?:\[.*\])+)\s*$/) {
		$ids{$1} = $2;
	} elsif (/^trace p(\d+) \d+$/) {
		$cur = $1;
		$samples{$cur} = [];
	} elsif (defined $cur && /^(\d+) c(\d+)$/) {
		push @{ $samples{$cur} }, [ $1, $2 ];
	} else {
		undef $cur;
	}
}
close $dh;

# exact times: "ts":123.456 -> 123456 ns (the events' own lines), plus
# the origin
my (%iv, %tname);
my $nev = 0;
my ($origin) = $text =~ /"time_origin_ns":"(\d+)"/;
die "$json: no otherData.time_origin_ns\n" unless defined $origin;
for my $line (split /\n/, $text) {
	if ($line =~ /"ph":"X","pid":\d+,"tid":(\d+),"ts":(-?)(\d+)\.(\d{3}),"dur":(\d+)\.(\d{3})/) {
		my $ts = $origin + ($2 ? -1 : 1) * ($3 * 1000 + $4);
		push @{ $iv{$1} }, [ $ts, $ts + $5 * 1000 + $6 ];
		$nev++;
	}
}
my $nx = grep { $_->{ph} eq 'X' } @{ $doc->{traceEvents} };
die "$json: $nx complete events, $nev on lines of their own\n" if $nx != $nev;
my (%pname, %pidof);
for my $e (@{ $doc->{traceEvents} }) {
	next unless $e->{ph} eq 'M';
	$tname{ $e->{tid} } = $e->{args}{name}, $pidof{ $e->{tid} } = $e->{pid}
		if $e->{name} eq 'thread_name';
	$pname{ $e->{pid} } = $e->{args}{name} if $e->{name} eq 'process_name';
}
# each profile's ids: [kind, logical, physical]; thread-level kinds
my %thr = map { $_ => 1 } qw(THREAD CORE GPUSTREAM);
my %el;
for my $p (keys %ids) {
	$el{$p} = [ map { [ /^(\w+) (\d+)(?: phys=(\d+))?/ ] } $ids{$p} =~ /\[([^\]]*)\]/g ];
}
sub idtext {
	my ($p, $threads) = @_;
	join ' ', map {
		my ($k, $l, $ph) = @$_;
		my $real = ($k eq 'RANK' || $k eq 'THREAD') && $ph && $ph != $l;
		"$k $l" . ($real ? ($k eq 'RANK' ? " PID $ph" : " TID $ph") : '')
	} grep { ($thr{ $_->[0] } ? 1 : 0) == $threads } @{ $el{$p} || [] };
}
# the drawing order: rank, the process's other ids, the thread's ids
sub key {
	my ($p) = @_;
	my @e = @{ $el{$p} || [] };
	my ($rank) = map { $_->[1] } grep { $_->[0] eq 'RANK' } @e;
	my @k = ($rank // 0);
	push @k, map { $_->[1] } grep { !$thr{ $_->[0] } && $_->[0] ne 'RANK' } @e;
	push @k, 0 while @k < 4;
	splice @k, 4;
	my @t = map { $_->[1] } grep { $thr{ $_->[0] } } @e;
	push @t, 0 while @t < 4;
	splice @t, 4;
	return (@k, @t, $p);
}
sub cmpkey {
	my @a = key($a); my @b = key($b);
	for my $i (0 .. $#a) { return $a[$i] <=> $b[$i] if $a[$i] != $b[$i] }
	return 0;
}
my @order = sort cmpkey keys %ids;
my %tidof;
$tidof{ $order[$_] } = $_ + 1 for 0 .. $#order;

# processes numbered in the drawing order too: pids never go down
my $lastpid = 0;
for my $p (@order) {
	my $pid = $pidof{ $tidof{$p} } // next;
	die "profile $p: pid $pid after pid $lastpid (not in (rank, thread) order)\n"
		if $pid < $lastpid;
	$lastpid = $pid;
}
my $nthreads = 0;
for my $p (sort { $a <=> $b } keys %samples) {
	my @s = sort { $a->[0] <=> $b->[0] } @{ $samples{$p} };
	next unless @s;
	my $tid = $tidof{$p};
	$nthreads++;
	# the thread's name: its thread-level ids (THREAD, CORE, GPUSTREAM)
	my $want = idtext($p, 1);
	$want = "profile " . ($p + 1) if $want eq '';
	my $got = $tname{$tid} // '(none)';
	die "tid $tid (profile $p): named '$got', expected '$want'\n" if $got ne $want;
	my $wantp = idtext($p, 0);
	$wantp = 'profconv' if $wantp eq '';
	my $gotp = $pname{ $pidof{$tid} // -1 } // '(none)';
	die "tid $tid: its process named '$gotp', expected '$wantp'\n" if $gotp ne $wantp;
	my ($busy, $framed, $sum) = (0, 0, 0);
	for my $i (0 .. $#s - 1) {
		my $d = $s[$i + 1][0] - $s[$i][0];
		$busy += $d if $s[$i][1] != 0;
		$framed += $d * $depth[ $s[$i][1] ];
	}
	$sum += $_->[1] - $_->[0] for @{ $iv{$tid} || [] };
	die "tid $tid: events last ${sum} ns in all, the trace's runs times their frames ${framed} ns\n"
		if $sum != $framed;
	my @e = sort { $a->[0] <=> $b->[0] || $b->[1] <=> $a->[1] } @{ $iv{$tid} || [] };
	# the union of the intervals, and nesting
	my ($u, $end, @stack) = (0, -1);
	for my $x (@e) {
		pop @stack while @stack && $stack[-1][1] <= $x->[0];
		if (@stack && $x->[1] > $stack[-1][1]) {
			die "tid $tid: event [$x->[0], $x->[1]] crosses the end of [$stack[-1][0], $stack[-1][1]]\n";
		}
		push @stack, $x;
		if ($x->[0] >= $end) { $u += $x->[1] - $x->[0]; $end = $x->[1]; }
		elsif ($x->[1] > $end) { $u += $x->[1] - $end; $end = $x->[1]; }
	}
	die "tid $tid: busy ${u} ns in events, ${busy} ns in the trace\n" if $u != $busy;
	my @busy_s = grep { $_->[1] != 0 } @s;
	if (@busy_s) {
		die "tid $tid: first event at $e[0][0] ns, first sample at $busy_s[0][0]\n"
			if !@e || $e[0][0] != $busy_s[0][0];
		my $last = 0;
		$last = $_->[1] > $last ? $_->[1] : $last for @e;
		my $lastt = $s[-1][0];
		die "tid $tid: last event ends at $last ns, after the trace's end $lastt\n"
			if $last > $lastt;
	}
}
print "threads $nthreads, events $nev\n";
