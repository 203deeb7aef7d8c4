use strict; use warnings;
sub fib { my $n = shift; return $n < 2 ? $n : fib($n-1) + fib($n-2); }
my $f = fib(18);
my $text = join(" ", map { "item$_=value" . ($_ * 7 % 13) } 1..3000);
my $count = 0;
while ($text =~ /item(\d+)=value(\d+)/g) { $count++ if $2 > 6; }
(my $t2 = $text) =~ s/value(\d)/V$1/g;
my @parts = grep { /^item\d*7=/ } split / /, $t2;
print "$f $count ", scalar(@parts), "\n";
