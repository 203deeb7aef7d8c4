#!/usr/bin/perl
# yaml_stats.pl [--root NAME] DEFAULT.YAML SCOPES: evaluates the statistics variants of
# a v4 database's metrics/default.yaml (Sum, Mean, StdDev, CfVar, Min,
# Max) the way a viewer does -- each input's partial formula over the
# threads' values, its combine, then the variant's formula tree -- and
# compares them with the statistics computed directly from the threads'
# values. SCOPES is the output of tests/v4_scopes for that database (its
# thread lines: PROFILE, PATH, METRIC, SCOPE, VALUE). Only the standard
# formulas of the scopes v4_scopes prints are evaluated (inclusive:
# execution, exclusive: function). Prints "N checked, M differ"; exit
# status 1 if any differs or nothing was checked. With --root NAME, it
# prints instead the inclusive (execution) value of root NAME's first
# variant at every context, as PATH <tab> VALUE (for derived metrics,
# whose formulas name several inputs).
#
# Its own small parser of the YAML our writer emits (block maps, flow
# formulas): no YAML module is needed, and it shares nothing with the
# writer.
use strict;
use warnings;

my $root;
($root = $ARGV[1], splice @ARGV, 0, 2) if @ARGV && $ARGV[0] eq '--root';
my ($yaml, $scopes) = @ARGV;
die "usage: yaml_stats.pl [--root NAME] DEFAULT.YAML SCOPES\n" unless defined $scopes;

sub unquote {
	my $s = shift;
	$s =~ s/^\s+|\s+$//g;
	if ($s =~ /^'(.*)'$/) { ($s = $1) =~ s/''/'/g; }
	elsif ($s =~ /^"(.*)"$/) { ($s = $1) =~ s/\\(.)/$1/g; }
	return $s;
}

# ---- default.yaml ----
my (%input, @variants); # anchor -> {metric, scope, formula, combine}
my ($section, $anchor, $metric, $variant, $which);
open my $y, '<', $yaml or die "$yaml: $!\n";
while (my $l = <$y>) {
	chomp $l;
	if ($l =~ /^(inputs|roots):/) { $section = $1; next; }
	next unless defined $section;
	if ($section eq 'inputs') {
		if ($l =~ /^- &(\S+)/) { $anchor = $1; next; }
		if ($l =~ /^  (metric|scope|formula|combine): (.*)$/) {
			$input{$anchor}{$1} = unquote($2);
		}
		next;
	}
	if ($l =~ /^- name: (.*)$/) { $metric = unquote($1); next; }
	if ($l =~ /^    (\S.*):$/) { $variant = unquote($1); next; }
	if ($l =~ /^        (inclusive|exclusive):$/) { $which = $1; next; }
	if ($l =~ /^          standard: (.*)$/) {
		push @variants, [ $metric, $variant,
				  $which eq 'inclusive' ? 'execution' : 'function', $1 ];
	}
}
close $y;

# ---- a formula: {op: [args]}, *alias, number ----
sub parse {
	my ($s) = @_;
	my @t = $s =~ /(\{|\}|\[|\]|,|:|\*[^\s,\]\}]+|'[^']*'|[^\s{}\[\],:]+)/g;
	my $i = 0;
	my $expr;
	$expr = sub {
		my $t = $t[$i++];
		die "formula ends early: $s\n" unless defined $t;
		return { ref => substr($t, 1) } if $t =~ /^\*/;
		return { num => $t } if $t =~ /^-?[0-9.]+(e-?[0-9]+)?$/;
		die "unexpected '$t' in $s\n" unless $t eq '{';
		my $op = unquote($t[$i++]);
		die "no ':' after $op in $s\n" unless $t[$i++] eq ':';
		die "no '[' after $op in $s\n" unless $t[$i++] eq '[';
		my @args;
		while ($t[$i] ne ']') {
			push @args, $expr->();
			$i++ if $t[$i] eq ',';
		}
		$i++;
		die "no '}' closing $op in $s\n" unless $t[$i++] eq '}';
		return { op => $op, args => \@args };
	};
	my $e = $expr->();
	die "trailing text in $s\n" if $i != @t;
	return $e;
}

sub sqrt0 { my $x = shift; return $x > 0 ? sqrt($x) : 0; }

my %vals; # metric \t scope \t path -> [the threads' values]

# a formula at one context (PATH)
sub evaluate {
	my ($e, $path) = @_;
	return $e->{num} if exists $e->{num};
	if (exists $e->{ref}) {
		my $in = $input{$e->{ref}} or die "unknown alias *$e->{ref}\n";
		my $vals = $vals{"$in->{metric}\t$in->{scope}\t$path"} // [];
		my ($acc, $n);
		for my $v (@$vals) {
			my $x = $in->{formula} eq '$$' ? $v :
				$in->{formula} eq '1' ? 1 :
				$in->{formula} eq '($$^2)' ? $v * $v :
				die "unknown partial formula $in->{formula}\n";
			if (!$n++) { $acc = $x; }
			elsif ($in->{combine} eq 'sum') { $acc += $x; }
			elsif ($in->{combine} eq 'min') { $acc = $x if $x < $acc; }
			elsif ($in->{combine} eq 'max') { $acc = $x if $x > $acc; }
			else { die "unknown combine $in->{combine}\n"; }
		}
		return $acc // 0;
	}
	my @a = map { evaluate($_, $path) } @{ $e->{args} };
	my $op = $e->{op};
	return $a[1] ? $a[0] / $a[1] : 'nan' if $op eq '/' && @a == 2;
	return $a[0] * $a[1] if $op eq '*' && @a == 2;
	return $a[0] + $a[1] if $op eq '+' && @a == 2;
	return -$a[0] if $op eq '-' && @a == 1;
	return $a[0] - $a[1] if $op eq '-' && @a == 2;
	return $a[0] ** $a[1] if $op eq '^' && @a == 2;
	return sqrt0($a[0]) if $op eq 'sqrt' && @a == 1;
	die "operator $op with " . scalar(@a) . " arguments\n";
}

# ---- the threads' values ----
open my $s, '<', $scopes or die "$scopes: $!\n";
while (<$s>) {
	chomp;
	my ($prof, $path, $m, $scope, $v) = split /\t/;
	next if $prof eq 'summary';
	push @{ $vals{"$m\t$scope\t$path"} }, $v;
}
close $s;

if (defined $root) {
	my ($v) = grep { $_->[0] eq $root && $_->[2] eq 'execution' } @variants;
	die "no inclusive formula for root $root\n" unless $v;
	my $tree = parse($v->[3]);
	my %paths = map { (split /\t/)[2] => 1 } keys %vals;
	printf "%s\t%.10g\n", $_, evaluate($tree, $_) for sort keys %paths;
	exit 0;
}

my %direct = (
	Sum => sub { my $t = 0; $t += $_ for @_; $t },
	Mean => sub { my $t = 0; $t += $_ for @_; $t / @_ },
	StdDev => sub {
		my ($t, $q) = (0, 0);
		for (@_) { $t += $_; $q += $_ * $_; }
		sqrt0($q / @_ - ($t / @_) ** 2);
	},
	Min => sub { my $m = $_[0]; for (@_) { $m = $_ if $_ < $m; } $m },
	Max => sub { my $m = $_[0]; for (@_) { $m = $_ if $_ > $m; } $m },
);
$direct{CfVar} = sub { $direct{StdDev}->(@_) / $direct{Mean}->(@_) };

my ($checked, $differ) = (0, 0);
my %seen;
for my $var (@variants) {
	my ($m, $name, $scope, $text) = @$var;
	my $f = $direct{$name} or next;
	$seen{$name}++;
	my $tree = parse($text);
	for my $k (keys %vals) {
		my ($km, $ks) = split /\t/, $k;
		next unless $km eq $m && $ks eq $scope;
		my @v = @{ $vals{$k} };
		my $path = (split /\t/, $k)[2];
		my ($want, $got) = ($f->(@v), evaluate($tree, $path));
		$checked++;
		my $tol = 1e-9 * (abs($want) > 1 ? abs($want) : 1);
		next if abs($want - $got) <= $tol;
		$differ++;
		print "differ: $name of $k: formula $got, threads $want\n"
			if $differ <= 10;
	}
}
print "variants: ", join(' ', map { "$_ x$seen{$_}" } sort keys %seen), "\n";
print "$checked checked, $differ differ\n";
exit($checked && !$differ ? 0 : 1);
