#!/usr/bin/perl
# legacy_scopes.pl DBDIR: an independent reader of old (pre-v4) HPCToolkit
# databases for profconv's tests. It prints every stored value in the line
# format of tests/v4_scopes.c (without its optional 6th field):
#
#     PROFILE <tab> CONTEXT PATH <tab> METRIC <tab> SCOPE <tab> VALUE
#
# so that `awk -f tests/scopes_cmp.awk OLD.txt NEW.txt` compares an old
# database with the v4 database profconv writes from it. Core Perl only;
# the XML is read by a small tokenizer. Exits 2 on anything it cannot read.
#
# Mapping rules (the conversion's documented rules):
# - Ids are resolved through the XML tables: MetricTable, MetricDBTable,
#   FileTable, ProcedureTable (and IdentifierNameTable for id tuples).
# - Paths start at "ROOT" (the <SecCallPathProfileData> element itself;
#   context id 0 in profile.db; in 2.x databases it is node 1 and its own
#   <M> children are its values).
#   A PF/Pr directly below it is an entry chosen by its procedure name:
#   "<program root>" -> entry1, "<thread root>" -> entry2, anything else
#   -> entry0; a name other than those and "<partial call paths>" also gets
#   a segment "call:fn:NAME" below entry0 (the PF is that deepest context).
#   A C whose parent is one of those three entries is folded into it:
#   same path, its own values are not printed.
# - Other elements append one segment: C and S "lex:line:FILE:LINE",
#   L "lex:loop:FILE:LINE", PF/Pr "call:fn:NAME", A and alien (a="1")
#   PF/Pr "inl:fn:NAME" (2.x's alien Pr with an empty name, at the line
#   of an inlined call, is "lex:line:FILE:LINE"). LINE is
#   the (first number of the) l attribute, 0 if absent; FILE is the File
#   name of the element's own f, else of the nearest enclosing PF/Pr/A/L
#   with an f, else "<unknown file>"; NAME is the Procedure name of n (n
#   itself when it is not a number).
# - Elements with a negative i have a path but no values.
# - A metric name ending in " (I)" (or t="inclusive") is scope "execution",
#   " (E)" (or t="exclusive") "function"; the suffix is dropped from the
#   name. Only nonzero values are printed, as %.17g.
# - 4.0 flavour (profile.db, big-endian): profile 0 is "summary", its
#   metric ids are MetricTable ids named by their md attribute; the other
#   profiles are named by their id tuple ("KIND:LOGICAL" joined by "/",
#   kind & 0x3FFF named by IdentifierNameTable), their metric ids are
#   MetricDB ids. Context ids are XML i attributes.
# - Values of context ids (profile.db) or nodes (metric-db) that no XML
#   element has are not printed: the viewers never show them (real prof2
#   databases store such ids, with values that duplicate their parents';
#   v4_scopes likewise skips contexts meta.db elides). --strict: exit 2.
# - 2.x flavour (*.metric-db): each file G.PROG-RANK-THREAD-HOST-PID-GEN
#   is the profile "RANK:r/THREAD:t"; row r is node r+1, column c the
#   MetricDB with db-id c. The summary is the inline <M n v/> values of
#   the MetricTable metrics whose name contains ":Sum" (METRIC = the name
#   up to ":Sum").
use v5.36;

sub fail(@m) { print STDERR "legacy_scopes: @m\n"; exit 2 }

sub slurp($p) {
	open my $fh, '<:raw', $p or fail("$p: $!");
	local $/;
	return <$fh> // '';
}

my ($strict, $trace) = (0, 0);
while (@ARGV && $ARGV[0] =~ /^--(strict|trace)$/) {
	shift;
	$1 eq 'strict' ? ($strict = 1) : ($trace = 1);
}
my $dir = shift // fail('usage: legacy_scopes.pl [--strict] [--trace] DBDIR');
@ARGV and fail('usage: legacy_scopes.pl [--strict] [--trace] DBDIR');

# ---- XML: a tree of {tag, a (attributes), kids, up} ----
my %ent = (lt => '<', gt => '>', amp => '&', quot => '"', apos => "'");

sub uchr($n) { my $c = chr $n; utf8::encode($c); return $c }    # as UTF-8

sub unent($s) {
	$s =~ s{&(?:#x([0-9a-fA-F]+)|#([0-9]+)|(\w+));}{
		defined $1 ? uchr(hex $1) : defined $2 ? uchr($2)
		: $ent{$3} // fail("unknown entity &$3;") }ge;
	return $s;
}

my $x = slurp("$dir/experiment.xml");
my $doc = { tag => '', kids => [] };
my ($cur, %tab) = ($doc);    # %tab: tag => { i => element }
while ((pos($x) // 0) < length $x) {
	next if $x =~ /\G[^<]+/gc or $x =~ /\G<\?.*?\?>/gcs
	    or $x =~ /\G<!--.*?-->/gcs;
	if ($x =~ /\G<!DOCTYPE\b[^\[>]*/gc) {    # skip the internal subset
		if ($x =~ /\G\[/gc) {
			1 while $x =~ /\G(?:\s+|<!--.*?-->|<\?.*?\?>|%[\w.-]+;
			    |<![A-Z]+(?:[^>"']+|"[^"]*"|'[^']*')*>)/gcsx;
			$x =~ /\G\]\s*/gc or fail('bad DOCTYPE internal subset');
		}
		$x =~ /\G>/gc or fail('bad DOCTYPE');
	} elsif ($x =~ /\G<\/([\w:.-]+)\s*>/gc) {
		$cur->{tag} eq $1 or fail("</$1> closes <$cur->{tag}>");
		$cur = $cur->{up};
	} elsif ($x =~ /\G<([\w:.-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/gc) {
		my ($t, $as, $empty, %a) = ($1, $2, $3);
		while ($as =~ /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g) {
			my ($k, $v) = ($1, $+);
			$a{$k} = unent($v);
		}
		my $e = { tag => $t, a => \%a, kids => [], up => $cur };
		push @{$cur->{kids}}, $e;
		$tab{$t}{$a{i}} = $e if defined $a{i};
		$cur = $e unless $empty;
	} else {
		fail('experiment.xml: XML syntax error at byte ' . (pos($x) // 0));
	}
}
$cur == $doc or fail("experiment.xml: <$cur->{tag}> is not closed");

sub find($e, $t) {
	return $e if $e->{tag} eq $t;
	for (@{$e->{kids}}) { my $r = find($_, $t); return $r if $r }
	return undef;
}
my $data = find($doc, 'SecCallPathProfileData')
	// fail('experiment.xml: no <SecCallPathProfileData>');

# a table name: ids are resolved, a non-number is the name itself
sub name_of($t, $id) {
	return $id unless $id =~ /^-?[0-9]+$/;
	my $e = $tab{$t}{$id} // fail("experiment.xml: no <$t i=\"$id\">");
	return $e->{a}{n} // fail("experiment.xml: <$t i=\"$id\"> has no n");
}

# metric name and scope: (name without suffix, "execution"/"function"/undef)
sub scope_of($n, $t) {
	return ($1, 'execution') if $n =~ /^(.*) \(I\)$/;
	return ($1, 'function') if $n =~ /^(.*) \(E\)$/;
	return ($n, $t eq 'inclusive' ? 'execution'
	    : $t eq 'exclusive' ? 'function' : undef);
}

# ---- contexts: node id => path; folded ids print nothing ----
my $v4 = -e "$dir/profile.db";    # else the 2.x flavour
my (%path, %folded, %itpath, @inline);    # @inline: [path, M element]
my %special = ('<program root>' => 'entry1', '<thread root>' => 'entry2',
	'<partial call paths>' => 'entry0');

sub line_of($a) { ($a->{l} // '') =~ /^\s*([0-9]+)/ ? $1 + 0 : 0 }

sub walk($e, $p, $file, $entry, $fold) {
	$itpath{$e->{a}{it}} = $p if defined $e->{a}{it};
	if (defined(my $i = $e->{a}{i})) {
		$i =~ /^-?[0-9]+$/ or fail("experiment.xml: bad i=\"$i\"");
		if ($i >= 0) {
			exists $path{$i} and fail("experiment.xml: two contexts i=\"$i\"");
			$path{$i} = $p;
			$folded{$i} = 1 if $fold;
		}
	}
	for my $k (@{$e->{kids}}) {
		my ($t, $a) = ($k->{tag}, $k->{a});
		if ($t eq 'M') {
			my $i = $e == $data ? 1 : $e->{a}{i} // -1;
			push @inline, [$p, $a] if $i >= 0 && !$fold;
			next;
		}
		my $fn = defined $a->{f} ? name_of('File', $a->{f}) : $file;
		my $kf = $t =~ /^(?:PF|Pr|A|L)$/ ? $fn : $file;
		my $lex = "$fn:" . line_of($a);
		if ($t =~ /^(?:PF|Pr)$/ && $e == $data) {
			my $n = name_of('Procedure', $a->{n} // '');
			my $q = "$p/" . ($special{$n} // 'entry0');
			$q .= "/call:fn:$n" unless $special{$n};
			walk($k, $q, $kf, $special{$n} ? 1 : 0, 0);
		} elsif ($t eq 'C' && $entry) {
			walk($k, $p, $kf, 0, 1);
		} elsif ($t =~ /^(?:C|S|L|PF|Pr|A)$/) {
			my $alien = $t eq 'A' || ($a->{a} // '') eq '1';
			my $pn = name_of('Procedure', $a->{n} // '');
			my $seg = $t eq 'L' ? "lex:loop:$lex"
			    : $t =~ /^(?:PF|Pr|A)$/ && $alien && $pn eq '' ? "lex:line:$lex"
			    : $t =~ /^(?:PF|Pr|A)$/ ? ($alien ? 'inl' : 'call') . ":fn:$pn"
			    : "lex:line:$lex";
			walk($k, "$p/$seg", $kf, 0, 0);
		} else {
			fail("experiment.xml: unexpected <$t> in the profile data");
		}
	}
}
$path{$v4 ? 0 : 1} = 'ROOT';    # the data root: 4.0 context 0, 2.x node 1
walk($data, 'ROOT', '<unknown file>', 0, 0);

sub out($prof, $ctx, $name, $scope, $v) {
	printf "%s\t%s\t%s\t%s\t%.17g\n", $prof, $ctx, $name, $scope, $v
	    if defined $scope && $v != 0;
}

# a context id of the binary files: its path, or undef when its values are
# not printed (folded, or not in experiment.xml and so hidden from viewers)
sub ctx($id) {
	return $folded{$id} ? undef : $path{$id} if defined $path{$id};
	$strict and fail("context id $id is not in experiment.xml");
	return undef;
}

# ---- binary files: big-endian reads with bounds checks ----
sub rd($buf, $fmt, $off, $len) {
	$off + $len <= length $$buf or fail("read past the end of a file");
	return unpack $fmt, substr($$buf, $off, $len);
}

# the profile of each profile.db index, by its id tuple
sub profiles($b) {
	rd($b, 'a16', 0, 16) eq 'HPCPROF-profdb__' or fail('profile.db: bad magic');
	my ($maj, $np, $pi) = (rd($b, 'C', 16, 1), rd($b, 'N', 18, 4), rd($b, 'Q>', 32, 8));
	$maj == 1 || $maj == 4 or fail("profile.db: version $maj");
	my %kind = map { $_->{a}{i} => $_->{a}{n} } values %{$tab{Identifier}};
	my @who = ('summary');
	for my $k (1 .. $np - 1) {
		my ($t, @tup) = rd($b, 'Q>', $pi + 52 * $k, 8);
		for my $j (0 .. rd($b, 'n', $t, 2) - 1) {
			my ($kd, $ph, $lg) = rd($b, 'n Q> Q>', $t + 2 + 18 * $j, 18);
			my $kn = $kind{$kd & 0x3FFF}
			    // fail("profile.db: identifier kind $kd is not in experiment.xml");
			push @tup, "$kn:$lg";
		}
		push @who, join '/', @tup;
	}
	return ($np, $pi, @who);
}

# A trace sample's path: hpcprof's root frame "<no activity>" (a thread
# doing nothing) is the root, as in v4 databases, where two root samples
# in a row say nothing (the second is not written)
sub tpath($it, $where, $last) {
	my $path = $itpath{$it} // fail("$where: no element has it=\"$it\"");
	$path = 'ROOT' if $path =~ m{^ROOT/entry[0-9]+/call:fn:<no activity>(/|$)};
	return $path eq 'ROOT' && $$last eq 'ROOT' ? undef : ($$last = $path);
}

if ($trace && !$v4) {    # *.hpctrace: times in ticks of TraceDB u (2.2) or us
	my ($tdb) = values %{$tab{TraceDB} // {}};
	my $u = $tdb && $tdb->{a}{u} ? 1e9 / $tdb->{a}{u} : 1000;
	opendir my $dh, $dir or fail("$dir: $!");
	for my $fn (sort grep { /\.hpctrace$/ } readdir $dh) {
		my @f = split /-/, $fn =~ s/\.hpctrace$//r;
		my $b = slurp("$dir/$fn");
		my ($mg, $ver, $end) = rd(\$b, 'a18 a5 a', 0, 24);
		$mg eq 'HPCRUN-trace______' && $end eq 'b' or fail("$fn: not an hpctrace");
		my ($hdr, $flags) = $ver eq '01.01' ? (32, rd(\$b, 'Q>', 24, 8)) : (24, 0);
		my $rec = $flags & 1 ? 16 : 12;
		my $last = '';
		for (my $o = $hdr; $o + $rec <= length $b; $o += $rec) {
			my ($t, $it) = rd(\$b, 'Q> N', $o, 12);
			next unless $it;
			my $path = tpath($it, $fn, \$last) // next;
			printf "RANK:%d/THREAD:%d\t%d\t%s\n", $f[-5], $f[-4], $t * $u, $path;
		}
	}
	exit 0;
}
if ($trace) {    # trace.db: PROFILE <tab> TIME <tab> PATH of the `it`
	exit 0 unless -e "$dir/trace.db";
	my $pb = slurp("$dir/profile.db");
	my (undef, undef, @who) = profiles(\$pb);
	my $b = slurp("$dir/trace.db");
	rd(\$b, 'a16', 0, 16) eq 'HPCPROF-tracedb_' or fail('trace.db: bad magic');
	my ($nt, $hp) = (rd(\$b, 'N', 18, 4), rd(\$b, 'Q>', 32, 8));
	for my $k (0 .. $nt - 1) {
		my ($p, $type, $a, $z) = rd(\$b, 'N n Q> Q>', $hp + 22 * $k, 22);
		next if $type || $a == $z;
		my $last = '';
		for (my $o = $a; $o < $z; $o += 12) {
			my ($t, $it) = rd(\$b, 'Q> N', $o, 12);
			my $path = tpath($it, 'trace.db', \$last) // next;
			print "$who[$p]\t$t\t$path\n";
		}
	}
	close STDOUT or fail("stdout: $!");
	exit 0;
}

if ($v4) {
	my $b = slurp("$dir/profile.db");
	my ($np, $pi, @who) = profiles(\$b);
	for my $k (0 .. $np - 1) {
		my $e = $pi + 52 * $k;
		my ($nv, $nc, $off) = (rd(\$b, 'Q>', $e + 32, 8),
			rd(\$b, 'N', $e + 40, 4), rd(\$b, 'Q>', $e + 44, 8));
		my $who = $who[$k];
		my $mt = $k ? 'MetricDB' : 'Metric';
		my $cp = $off + 10 * $nv;
		for my $c (0 .. $nc - 1) {
			my ($id, $a, undef, $z) = rd(\$b, 'N Q> N Q>', $cp + 12 * $c, 24);
			$z = $nv if $c == $nc - 1;
			$a <= $z && $z <= $nv or fail("profile.db: bad value index");
			my $p = ctx($id) // next;
			for my $v ($a .. $z - 1) {
				my ($val, $mid) = rd(\$b, 'd> n', $off + 10 * $v, 10);
				my $m = $tab{$mt}{$mid}
				    // fail("profile.db: no <$mt i=\"$mid\"> in experiment.xml");
				my ($n, $s) = scope_of($m->{a}{n} // '', $m->{a}{t} // '');
				if (!$k) {
					$n = $m->{a}{md} // fail("<Metric i=\"$mid\"> has no md");
				}
				out($who, $p, $n, $s, $val);
			}
		}
	}
} else {    # 2.x flavour
	for my $m (@inline) {
		my ($p, $a) = @$m;
		my $me = $tab{Metric}{$a->{n} // ''}
		    // fail("experiment.xml: <M n=\"$a->{n}\"> is not in the MetricTable");
		my ($n, $s) = scope_of($me->{a}{n} // '', $me->{a}{t} // '');
		out('summary', $p, $1, $s, $a->{v} // 0) if $n =~ /^(.*?):Sum/;
	}
	my %col = map { ($_->{a}{'db-id'} // -1) => $_ } values %{$tab{MetricDB}};
	opendir my $dh, $dir or fail("$dir: $!");
	for my $fn (sort grep { /\.metric-db$/ } readdir $dh) {
		my ($f, @f) = ("$dir/$fn", split /-/, $fn =~ s/\.metric-db$//r);
		@f >= 6 && "$f[-5]$f[-4]" =~ /^[0-9]+$/ or fail("$f: unexpected file name");
		my $who = sprintf 'RANK:%d/THREAD:%d', $f[-5], $f[-4];
		my $b = slurp($f);
		my ($mg, $ver, $end, $nn, $nm) = rd(\$b, 'a18 a5 a N N', 0, 32);
		$mg eq 'HPCPROF-metricdb__' && $end eq 'b' or fail("$f: not a big-endian metric-db");
		length $b == 32 + 8 * $nn * $nm or fail("$f: size is not that of $nn x $nm values");
		my @v = unpack 'd>*', substr($b, 32);
		for my $r (0 .. $nn - 1) {
			for my $c (0 .. $nm - 1) {
				my $val = $v[$r * $nm + $c] or next;
				my $p = ctx($r + 1) // next;
				my $m = $col{$c} // fail("$f: no <MetricDB db-id=\"$c\">");
				out($who, $p, scope_of($m->{a}{n} // '', $m->{a}{t} // ''), $val);
			}
		}
	}
}
close STDOUT or fail("stdout: $!");
