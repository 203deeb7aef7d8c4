<?php
function fib($n) { return $n < 2 ? $n : fib($n-1) + fib($n-2); }
function build($n) { $a = []; for ($i = 0; $i < $n; $i++) $a[] = str_repeat("x", $i % 50); return $a; }
$a = build(40);
echo fib(6), " ", count($a), "\n";
