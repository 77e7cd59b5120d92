# Bandwidth (best sample) against working-set size, one line per kernel and
# thread count, with the levels of the read roof (the best of read, read2
# and read4 at each level) drawn as bars at their bandwidth, each labelled
# with the kernel that set it. roofbench ceilings writes this script
# beside bandwidth.csv and levels.csv in its run folder and runs it there,
# with no argument: everything it needs is in those files.
#   gnuplot plot-bandwidth.gp
# It writes bandwidth.png and bandwidth.svg.
set datafile separator ","
add_word(list, w) = strstrt(" " . list . " ", " " . w . " ") ? list : \
                    (list eq "" ? w : list . " " . w)
# the kernels and thread counts of the curves, and the thread counts with
# read levels to draw
present = ""
threads = ""
levels = ""
# fixed ranges: a levels.csv with no level (a sweep too short to find one)
# is then a warning, not an invalid range
set xrange [0:2]
set yrange [0:2]
set table $discard
plot "bandwidth.csv" skip 1 using \
       (threads = add_word(threads, sprintf("%d", $2)), \
        present = add_word(present, strcol(1)), 1):(1) with points
plot "levels.csv" skip 1 using \
       (levels = strcol(1) eq "roof-read" ? add_word(levels, sprintf("%d", $2)) \
                                          : levels, 1):(1) with points
unset table
set autoscale xy
set logscale x 2
set logscale y 10
set xlabel "working set (bytes, all threads)"
set ylabel "bandwidth (GB/s)"
set format x "%.0b%B"
set grid xtics ytics mxtics
set key outside right top
set title "Measured bandwidth by working-set size"

# the kernels measured, in their usual order: no key entry without a curve
kernels = ""
do for [k in "read read2 read4 write copy triad schoenauer"] {
  if (strstrt(" " . present . " ", " " . k . " ")) { kernels = add_word(kernels, k) }
}
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1400,800 noenhanced } \
  else { set terminal svg size 1400,800 dynamic noenhanced }
  set output "bandwidth." . fmt
  # gnuplot 5.4 dies on a labels plot with no point: levels only where
  # the read roof has them
  plot for [k in kernels] for [t in threads] "bandwidth.csv" \
         using (strcol(1) eq k && $2 == t ? $3 : NaN):5 skip 1 \
         with linespoints pointsize 0.6 title sprintf("%s, %s thread%s", k, t, t eq "1" ? "" : "s"), \
       for [t in levels] "levels.csv" \
         using (strcol(1) eq "roof-read" && $2 == t ? $5 : NaN):4:($6 - $5):(0) skip 1 \
         with vectors nohead linewidth 5 linecolor rgb "#80404040" notitle, \
       for [t in levels] "levels.csv" \
         using (strcol(1) eq "roof-read" && $2 == t ? sqrt($5 * $6) : NaN):($4 * 1.12): \
               (sprintf("%s %.0f GB/s (%s)", strcol(3), $4, strcol(8))) skip 1 \
         with labels font ",9" notitle
  unset output
}
