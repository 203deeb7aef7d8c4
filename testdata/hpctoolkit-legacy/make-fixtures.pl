#!/usr/bin/perl
# Writes the old-format HPCToolkit fixtures of this directory (see
# README): small databases in both flavours with known values, and the
# damaged copies in bad/. Run from this directory: perl make-fixtures.pl
use v5.36;
use File::Path qw(make_path remove_tree);

# The program: a tree of contexts (id, element, attributes, children).
# Statement costs per thread are in %cost; inclusive (I) and exclusive
# (E) values follow HPCToolkit's rules: I = everything below, E of a
# frame (PF, A) = its statements outside nested frames, E of a loop = its
# statements, E of a statement = its cost, a call site has only I.
my @tree = ([2, 'PF', 'n="4" lm="2147483647" f="0" l="0"', [     # <program root>
	[-2, 'C', 'l="0" it="2"', [
	[3, 'PF', 'n="5" lm="1" f="1" l="10" v="0x401120"', [     # main
		[4, 'L', 'f="1" l="12"', [
			[5, 'S', 'l="13" it="5"', []],
			[6, 'C', 'l="14" it="6"', [
				[7, 'PF', 'n="6" lm="1" f="1" l="30"', [     # work
					[8, 'S', 'l="31" it="8"', []],
					[9, 'A', 'n="7" lm="1" f="2" l="5"', [     # inlined helper
						[10, 'S', 'l="6" it="10"', []]]]]]]]]],
		[11, 'S', 'l="20" it="11"', []]]]]]]]);
# two threads; context 12 is not in the XML (an elided instruction below
# statement 8, holding part of its cost, as hpcprof writes them)
my @cost = ({ 5 => 100, 8 => 300, 10 => 20, 11 => 7 },
	    { 5 => 50, 8 => 0.5, 10 => 40, 11 => 0 });
my @elided = ({ 12 => 100 }, { 12 => 0.25 });

my (%I, %E, %parent, %el);
sub values_of($t, $frame) {
	my ($id, $el, undef, $kids) = @$t;
	$el{$id} = $el;
	my @i = (0, 0);
	for my $k (@$kids) {
		$parent{$k->[0]} = $id;
		my $f = $k->[1] =~ /^(PF|A)$/ ? $k->[0] : $frame;
		my $ki = values_of($k, $f);
		$i[$_] += $ki->[$_] for 0, 1;
	}
	for my $p (0, 1) {
		my $c = $cost[$p]{$id} // 0;
		$i[$p] += $c;
		$I{$p}{$id} = $i[$p] if $id > 0;
		# a statement's cost is exclusive to it, its loops and its frame
		if ($c) {
			$E{$p}{$id} += $c;
			for (my $a = $parent{$id}; defined $a; $a = $parent{$a}) {
				last if $el{$a} eq 'C' || !defined $el{$a};
				$E{$p}{$a} += $c if $a > 0 && $el{$a} =~ /^(L|PF|A)$/;
				last if $el{$a} =~ /^(PF|A)$/;
			}
		}
	}
	return \@i;
}
my $root = values_of($tree[0], 2);
$I{$_}{0} = $root->[$_] for 0, 1;    # 4.0: context 0 is the root
for my $p (0, 1) { $I{$p}{12} = $E{$p}{12} = $elided[$p]{12} }

sub xml_tree($t, $ind, $vals) {
	my ($id, $el, $attr, $kids) = @$t;
	my $s = "$ind<$el i=\"$id\" $attr";
	my $m = $vals ? $vals->($id) : '';
	return "$s/>\n" unless @$kids || $m;
	$s .= ">\n$m";
	$s .= xml_tree($_, $ind, $vals) for @$kids;
	return "$s$ind</$el>\n";
}

my $tables = <<'EOT';
<LoadModuleTable>
<LoadModule i="1" n="/home/user/tiny"/>
<LoadModule i="2147483647" n="&lt;unknown module&gt;"/>
</LoadModuleTable>
<FileTable>
<File i="0" n="&lt;unknown file&gt;"/>
<File i="1" n="/home/user/tiny.c"/>
<File i="2" n="/home/user/helper.h"/>
</FileTable>
<ProcedureTable>
<Procedure i="4" n="&lt;program root&gt;" v="0" f="1"/>
<Procedure i="5" n="main" v="0x401120"/>
<Procedure i="6" n="work" v="0x401200"/>
<Procedure i="7" n="helper" v="0"/>
</ProcedureTable>
EOT

sub put($path, $bytes) {
	open my $f, '>:raw', $path or die "$path: $!";
	print $f $bytes;
	close $f or die "$path: $!";
}
sub hdr($magic, $count, @sec) {    # prof2 header, sections at 128
	my $h = pack('a16 C C N n', $magic, 1, 0, $count, @sec / 2) . pack('(Q> Q>)*', @sec);
	return $h . "\0" x (128 - length $h);
}

# ---- experiment.xml 4.0 + HPCPROF-profile.db, cct.db, trace.db ----
sub write_v4($dir, %opt) {
	make_path($dir);
	my $xml = <<'EOT';
<?xml version="1.0"?>
<HPCToolkitExperiment version="4.0">
<Header n="tiny">
<Info/>
</Header>
<SecCallPathProfile i="0" n="tiny">
<SecHeader>
<IdentifierNameTable>
<Identifier i="0" n="SUMMARY"/>
<Identifier i="1" n="NODE"/>
<Identifier i="2" n="RANK"/>
<Identifier i="3" n="THREAD"/>
</IdentifierNameTable>
<MetricTable>
<Metric i="512" o="512" n="T:PARTIAL:0 (I)" md="T" v="derived-incr" t="inclusive" partner="256" show="4" show-percent="0"/>
<Metric i="256" o="256" n="T:PARTIAL:0 (E)" md="T" v="derived-incr" t="exclusive" partner="512" show="4" show-percent="0"/>
<Metric i="767" o="767" n="T:Sum (I)" md="T" v="derived-incr" t="inclusive" partner="511" show="1" show-percent="1">
<MetricFormula t="view" frm="$512"/>
</Metric>
<Metric i="511" o="511" n="T:Sum (E)" md="T" v="derived-incr" t="exclusive" partner="767" show="1" show-percent="1">
<MetricFormula t="view" frm="$256"/>
</Metric>
</MetricTable>
<MetricDBTable>
<MetricDB i="2" n="T (I)"/>
<MetricDB i="1" n="T (E)"/>
</MetricDBTable>
<TraceDBTable>
<TraceDB i="0" db-min-time="1000" db-max-time="9000" u="1000000000"/>
</TraceDBTable>
EOT
	$xml .= $tables . "</SecHeader>\n<SecCallPathProfileData>\n"
	    . xml_tree($tree[0], '', undef)
	    . "</SecCallPathProfileData>\n</SecCallPathProfile>\n</HPCToolkitExperiment>\n";
	$xml = $opt{xml}->($xml) if $opt{xml};
	put("$dir/experiment.xml", $xml);

	# profiles: 0 = summary (MetricTable ids), 1.. = threads (MetricDB ids)
	my @prof = ([[0, 0, 0]], [[1, 0xa8c0, 0], [0xC002, 0, 0], [0xC003, 0, 0]],
		    [[1, 0xa8c0, 0], [0xC002, 0, 0], [0xC003, 1, 1]]);
	my $np = @prof;
	my $pi = 128;
	my $idt = $pi + 52 * $np;
	$idt += 8 - $idt % 8 if $idt % 8;
	my ($tuples, @tp) = ('');
	for my $t (@prof) {
		push @tp, $idt + length $tuples;
		$tuples .= pack('n', scalar @$t) . join '', map { pack 'n Q> Q>', @$_ } @$t;
	}
	my $blocks = '';
	my $base = $idt + length $tuples;
	my @info;
	for my $k (0 .. $np - 1) {
		my ($vals, $ctxs, $nv) = ('', '', 0);
		my ($mi, $me) = $k ? (2, 1) : (512, 256);
		for my $c (sort { $a <=> $b } keys %{$I{0}}) {
			my @v;
			for my $p ($k ? ($k - 1) : (0, 1)) {
				$v[0] += $I{$p}{$c} // 0;
				$v[1] += $E{$p}{$c} // 0;
			}
			my $nz = 0;
			$ctxs .= pack('N Q>', $opt{ctx_id} && $c == 12 ? $opt{ctx_id} : $c, $nv) if $v[0] || $v[1];
			for ([$v[0], $mi], [$v[1], $me]) {
				next unless $_->[0];
				$vals .= pack('d> n', @$_);
				$nv++;
			}
		}
		$ctxs .= pack('N Q>', 0x656E6421, $nv);
		push @info, pack('Q> Q> Q> Q> Q> N Q>', $tp[$k], 0, 0, 0, $nv,
				 length($ctxs) / 12 - 1, $base + length $blocks);
		$blocks .= $vals . $ctxs;
	}
	my $info = join '', @info;
	my $pdb = hdr('HPCPROF-profdb__', $np, length $info, $pi, length $tuples, $idt)
	    . $info . "\0" x ($idt - $pi - length $info) . $tuples . $blocks . 'tfBDFORP';
	$pdb = $opt{profile}->($pdb) if $opt{profile};
	put("$dir/profile.db", $pdb);

	my $nctx = 13;
	my $ci = join '', map { pack 'N Q> n Q>', $_, 0, 0, 0 } 0 .. $nctx - 1;
	put("$dir/cct.db", hdr('HPCPROF-cctdb___', $nctx, length $ci, 128) . $ci . 'rtfBDTCC');

	# traces: thread 0 in main's loop and work, thread 1 in helper
	my @tr = ([[1000, 5], [2000, 8], [3000, 8], [4000, 11]],
		  [[1500, 10], [2500, $opt{trace_it} // 5]]);
	my $th = '';
	my $lines = '';
	my $at = 128 + 22 * @tr;
	for my $k (0 .. $#tr) {
		my $l = join '', map { pack 'Q> N', @$_ } @{$tr[$k]};
		$th .= pack('N n Q> Q>', $k + 1, 0, $at + length $lines, $at + length($lines) + length $l);
		$lines .= $l;
	}
	put("$dir/trace.db", hdr('HPCPROF-tracedb_', scalar @tr, length $th, 128) . $th . $lines);
}

# ---- experiment.xml 2.0 with inline sums + per-thread metric-db ----
sub write_v2($dir, %opt) {
	make_path($dir);
	my %sum;
	for my $p (0, 1) {
		for my $c (keys %{$I{$p}}) {
			next if $c == 12;
			my $n = $c == 0 ? 1 : $c;    # 2.x: the root is node 1
			$sum{$n}{I} += $I{$p}{$c};
			$sum{$n}{E} += $E{$p}{$c} // 0;
		}
	}
	my $m = sub ($id) {
		my $s = '';
		$s .= sprintf "<M n=\"0\" v=\"%g\"/>", $sum{$id}{I} if $sum{$id}{I};
		$s .= sprintf "<M n=\"1\" v=\"%g\"/>", $sum{$id}{E} if $sum{$id}{E};
		return $s ? "$s\n" : '';
	};
	(my $t2 = $tables) =~ s/ v="[^"]*"//g;
	# 2.x: no negative ids; the call site below the root is node 13
	my @t = @{$tree[0]};
	my $xml = <<'EOT' . $t2 . <<'EOT2' . $m->(1) . xml_tree([@t[0 .. 2], [[13, 'C', 'l="0"', $tree[0][3][0][3]]]], '', $m) . <<'EOT3';
<?xml version="1.0"?>
<!DOCTYPE HPCToolkitExperiment [
<!ELEMENT HPCToolkitExperiment (Header, (SecCallPathProfile|SecFlatProfile)*)>
<!ATTLIST HPCToolkitExperiment version CDATA #REQUIRED>
]>
<HPCToolkitExperiment version="2.0">
<Header n="tiny">
  <Info/>
</Header>
<SecCallPathProfile i="0" n="tiny">
<SecHeader>
  <MetricTable>
    <Metric i="0" n="T:Sum (I)" v="derived-incr" t="inclusive" partner="1" show="1" show-percent="1">
      <MetricFormula t="combine" frm="sum($0, $0)"/>
      <MetricFormula t="finalize" frm="$0"/>
    </Metric>
    <Metric i="1" n="T:Sum (E)" v="derived-incr" t="exclusive" partner="0" show="1" show-percent="1">
      <MetricFormula t="combine" frm="sum($1, $1)"/>
      <MetricFormula t="finalize" frm="$1"/>
    </Metric>
    <Metric i="2" n="T:Mean (I)" v="derived-incr" t="inclusive" partner="3" show="1" show-percent="0">
      <MetricFormula t="combine" frm="sum($2, $2)"/>
      <MetricFormula t="finalize" frm="$2 / 2"/>
    </Metric>
    <Metric i="3" n="T:Mean (E)" v="derived-incr" t="exclusive" partner="2" show="1" show-percent="0">
      <MetricFormula t="combine" frm="sum($3, $3)"/>
      <MetricFormula t="finalize" frm="$3 / 2"/>
    </Metric>
    <Metric i="4" n="T:StdDev (I)" v="derived-incr" t="inclusive" partner="6" show="1" show-percent="0">
      <MetricFormula t="combine" frm="sum($4, $4)"/>
      <MetricFormula t="combine" frm="sum($5, $5)"/>
      <MetricFormula t="finalize" frm="sqrt(($5 / 2) - pow($4 / 2, 2))"/>
    </Metric>
    <Metric i="5" n="T:StdDev (I)" v="derived-incr" t="inclusive" show="4" show-percent="0">
      <MetricFormula t="combine" frm="sum($5, $5)"/>
    </Metric>
    <Metric i="6" n="T:Max (E)" v="derived-incr" t="exclusive" partner="4" show="1" show-percent="0">
      <MetricFormula t="combine" frm="max($6, $6)"/>
      <MetricFormula t="finalize" frm="$6"/>
    </Metric>
    <Metric i="7" n="T exclusive share (I)" v="derived" t="inclusive" show="1" show-percent="0">
      <MetricFormula t="finalize" frm="100 * $1 / $0"/>
    </Metric>
    <Metric i="8" n="T of the total (I)" v="derived" t="inclusive" show="1" show-percent="0">
      <MetricFormula t="finalize" frm="$0 / @0"/>
    </Metric>
  </MetricTable>
  <MetricDBTable>
    <MetricDB i="0" n="T (I)" t="inclusive" partner="1" db-glob="*.metric-db" db-id="0" db-num-metrics="2" db-header-sz="24"/>
    <MetricDB i="1" n="T (E)" t="exclusive" partner="0" db-glob="*.metric-db" db-id="1" db-num-metrics="2" db-header-sz="24"/>
  </MetricDBTable>
EOT
  <Info/>
</SecHeader>
<SecCallPathProfileData>
EOT2
</SecCallPathProfileData>
</SecCallPathProfile>
</HPCToolkitExperiment>
EOT3
	# 2.x writes inlined code as an alien Pr, not as A
	$xml =~ s{<A i="9" n="7" lm="1" f="2" l="5">}{<Pr i="9" n="7" lm="1" f="2" l="5" a="1">};
	$xml =~ s{</A>}{</Pr>};
	$xml = $opt{xml}->($xml) if $opt{xml};
	put("$dir/experiment.xml", $xml);
	# traces: version 01.01, no flags, microseconds (experiment.xml 2.0)
	my @tr = ([[1, 5], [2, 8], [3, 0], [4, 11]], [[1, 10], [3, 5]]);
	for my $p (0, 1) {
		my $b = pack('a18 a5 a Q>', 'HPCRUN-trace______', '01.01', 'b', 0)
		    . join '', map { pack 'Q> N', 1700000000000000 + $_->[0], $_->[1] } @{$tr[$p]};
		put(sprintf("%s/tiny-%06d-%03d-a8c00270-%d-0.hpctrace", $dir, 0, $p, 4242 + $p), $b);
	}
	my $nn = 13;
	for my $p (0, 1) {
		my $b = pack('a18 a5 a N N', 'HPCPROF-metricdb__', '00.10', 'b', $nn, 2);
		for my $n (1 .. $nn) {
			my $c = $n == 1 ? 0 : $n == 13 ? 3 : $n;    # node 13: C above main
			$b .= pack('d> d>', $I{$p}{$c} // 0, $n == 13 ? 0 : $E{$p}{$c} // 0);
		}
		$b = $opt{mdb}->($b) if $opt{mdb};
		put(sprintf("%s/1.tiny-%06d-%03d-a8c00270-%d-0.metric-db", $dir, 0, $p, 4242 + $p), $b);
	}
}

remove_tree('tiny-4.0', 'tiny-2.0', 'bad');
write_v4('tiny-4.0');
write_v2('tiny-2.0');
# damaged copies, one damage each (the README lists the expected errors)
write_v4('bad/truncated-profile', profile => sub ($b) { substr $b, 0, 300 });
write_v4('bad/profile-magic', profile => sub ($b) { substr($b, 0, 16) = 'HPCPROF-profXX__'; $b });
write_v4('bad/profile-version', profile => sub ($b) { substr($b, 16, 1) = "\x07"; $b });
write_v4('bad/profile-count-bomb', profile => sub ($b) { substr($b, 18, 4) = pack 'N', 0x3fffffff; $b });
write_v4('bad/context-not-in-xml', ctx_id => 99);
write_v4('bad/trace-it-unknown', trace_it => 77);
write_v4('bad/xml-syntax', xml => sub ($x) { $x =~ s{<S i="8" l="31" it="8"/>}{<S i="8" l="31" it="8">}; $x });
write_v4('bad/xml-version', xml => sub ($x) { $x =~ s/version="4.0"/version="3.0"/; $x });
write_v4('bad/billion-laughs', xml => sub ($x) {
	my $dtd = "<!DOCTYPE HPCToolkitExperiment [\n<!ENTITY a \"aaaaaaaaaa\">\n"
	    . join('', map { sprintf "<!ENTITY %s \"%s\">\n", chr(98 + $_), join '', ('&' . chr(97 + $_) . ';') x 10 } 0 .. 8)
	    . "]>\n";
	$x =~ s/(<\?xml[^>]*>\n)/$1$dtd/;
	$x =~ s/<Header n="tiny">/<Header n="&j;">/;
	$x });
write_v4('bad/xml-encoding', xml => sub ($x) { "<\0\0\0\xff" });
# hostile: the entity guard is libxml2's own view, whatever the bytes
# say (a declared UTF-7 hid "<!ENTITY" from a byte filter); encodings
# and byte-order marks HPCToolkit never writes are refused
my $utf7 = sub ($x, $dtd, $use) {
	$x =~ s/<\?xml[^>]*>\n/<?xml version="1.0" encoding="UTF-7"?>\n<!DOCTYPE HPCToolkitExperiment [\n$dtd]>\n/;
	$use->($x) };
write_v4('bad/utf7-billion-laughs', xml => sub ($x) {
	$utf7->($x, "+ADw-!ENTITY a \"aaaaaaaaaa\">\n"
	    . join('', map { sprintf "+ADw-!ENTITY %s \"%s\">\n", chr(98 + $_), join '', ('&' . chr(97 + $_) . ';') x 10 } 0 .. 8),
	    sub ($y) { $y =~ s/<Header n="tiny">/<Header n="&j;">/; $y }) });
write_v4('bad/utf7-entity-name', xml => sub ($x) {
	$utf7->($x, "+ADw-!ENTITY f \"main\">\n",
	    sub ($y) { $y =~ s/<Procedure i="5" n="main"/<Procedure i="5" n="&f;"/; $y }) });
write_v4('bad/parameter-entity', xml => sub ($x) {
	$x =~ s/(<\?xml[^>]*>\n)/$1<!DOCTYPE HPCToolkitExperiment [\n<!ENTITY % p "<!ELEMENT Info EMPTY>">\n%p;\n]>\n/; $x });
write_v4('bad/utf16-bom', xml => sub ($x) { "\xff\xfe" . join('', map { "$_\0" } split //, $x) });
write_v4('bad/unknown-procedure', xml => sub ($x) { $x =~ s/n="6" lm="1"/n="66" lm="1"/; $x });
write_v2('bad/metricdb-short', mdb => sub ($b) { substr $b, 0, length($b) - 16 });
write_v2('bad/metricdb-count-bomb', mdb => sub ($b) { substr($b, 24, 4) = pack 'N', 0x40000000; $b });
write_v2('bad/metricdb-magic', mdb => sub ($b) { substr($b, 0, 7) = 'HPCRUN-'; $b });
