#!/usr/bin/perl
# Reads call edges as tests/annotate2tsv.awk prints them (mode=edges:
# "caller<TAB>callee<TAB>costs") and prints, one per line, the functions
# that lie on a recursive cycle: members of a strongly connected
# component of more than one function, or that call themselves.
# (Tarjan's algorithm, without recursion.)
use strict;
use warnings;

my (%id, @name, @out, %self);
sub node { my $n = shift; $id{$n} //= do { push @name, $n; push @out, []; $#name } }
while (<>) {
	chomp;
	my ($a, $b) = split /\t/;
	next unless defined $b;
	my ($u, $v) = (node($a), node($b));
	push @{ $out[$u] }, $v;
	$self{$u} = 1 if $u == $v;
}
my $n = @name;
my (@index, @low, @on, @stack, %cyclic);
my $counter = 0;
for my $root (0 .. $n - 1) {
	next if defined $index[$root];
	my @call = ([$root, 0]);
	$index[$root] = $low[$root] = $counter++;
	push @stack, $root;
	$on[$root] = 1;
	while (@call) {
		my $f = $call[-1];
		my ($v, $i) = @$f;
		if ($i < @{ $out[$v] }) {
			$f->[1]++;
			my $w = $out[$v][$i];
			if (!defined $index[$w]) {
				$index[$w] = $low[$w] = $counter++;
				push @stack, $w;
				$on[$w] = 1;
				push @call, [$w, 0];
			} elsif ($on[$w] && $index[$w] < $low[$v]) {
				$low[$v] = $index[$w];
			}
			next;
		}
		if ($low[$v] == $index[$v]) {
			my @scc;
			my $w;
			do {
				$w = pop @stack;
				$on[$w] = 0;
				push @scc, $w;
			} while ($w != $v);
			if (@scc > 1 || $self{$v}) {
				$cyclic{ $name[$_] } = 1 for @scc;
			}
		}
		pop @call;
		if (@call) {
			my $u = $call[-1][0];
			$low[$u] = $low[$v] if $low[$v] < $low[$u];
		}
	}
}
print "$_\n" for sort keys %cyclic;
