# The reference rooflines: roofbench all writes this script beside
# reference-roofs.csv and reference-ridges.csv and runs it there, with no
# argument:
#   gnuplot plot-reference.gp
# The host (its measured roofline, all cores) and each reference profile
# (its spec sheet, headline dtype) on one log-log chart:
# min(peak, intensity x memory bandwidth), each ridge point marked and
# labelled. Writes reference.png and reference.svg.
# reference-roofs.csv: target,intensity,gflops;
# reference-ridges.csv: target,intensity,gflops,text.
set datafile separator ","
add_word(list, w) = strstrt(" " . list . " ", " " . w . " ") ? list : \
                    (list eq "" ? w : list . " " . w)
targets = ""
set table $discard
plot "reference-ridges.csv" skip 1 using (targets = add_word(targets, strcol(1)), 1):(1) with points
unset table
nt = words(targets)
if (nt == 0) { print "nothing to draw"; exit }
colour(i) = word("#d62728 #1f77b4 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf", (i - 1) % 8 + 1)
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1100, 700 noenhanced font ",10" } \
  else { set terminal svg size 1100, 700 dynamic noenhanced font ",10" }
  set output "reference." . fmt
  set title "The host beside the reference chips: each one's roofline and ridge point"
  set logscale xy
  set xrange [0.01:10000]
  set xlabel "intensity (FLOP per byte of memory traffic)"
  set ylabel "GFLOP/s (one chip; the host: all its cores)"
  set grid xtics ytics
  set key outside right top font ",9"
  plot for [i = 1:nt] "reference-roofs.csv" skip 1 \
         using (strcol(1) eq word(targets, i) ? $2 : NaN):3 \
         with lines linewidth 2 linecolor rgb colour(i) title word(targets, i), \
       for [i = 1:nt] "reference-ridges.csv" skip 1 \
         using (strcol(1) eq word(targets, i) ? $2 : NaN):3 \
         with points pointtype 7 pointsize 1.3 linecolor rgb colour(i) notitle, \
       "reference-ridges.csv" skip 1 using 2:($3 * 1.25):4 \
         with labels left offset 0.5, 0 font ",9" notitle
}
