# Four orders, same FLOPs: roofbench orders writes this script beside
# orders.csv and orders-roofline.csv in its run folder and runs it there,
# with no argument: everything it needs is in those files.
#   gnuplot plot-orders.gp
# One chart per dtype and size in orders.csv, three panels each: bytes
# moved at L1 and at the last level per form and source (log scale),
# GFLOP/s per form, and the forms as points on the host roofline at their
# effective intensity (FLOPs / bytes at the last level, from the best
# source). Writes orders-<dtype>-<n>.png and .svg. orders.csv columns:
# dtype,n,p,m,kernel,form,flops,t_min_s,gflops,source,l1_bytes,ll_bytes,
# ll_name,intensity_ll; orders-roofline.csv: what,name,value (the host's
# peak GFLOP/s per dtype, and each memory level's GB/s).
set datafile separator ","
add_word(list, w) = strstrt(" " . list . " ", " " . w . " ") ? list : \
                    (list eq "" ? w : list . " " . w)
# the charts: each dtype and size with a timing, as "f64:512"
charts = ""
peaks = ""
roofs = ""
present = ""
set table $discard
plot "orders.csv" skip 1 using \
       (charts = strcol(10) eq "time" ? \
                 add_word(charts, strcol(1) . ":" . sprintf("%d", $2)) : \
                 charts, \
        present = add_word(present, strcol(10)), 1):(1) with points
plot "orders-roofline.csv" skip 1 using \
       (peaks = strcol(1) eq "peak" ? \
                peaks . " " . strcol(2) . " " . sprintf("%.3f", $3) : peaks, \
        roofs = strcol(1) eq "level" ? \
                roofs . " " . strcol(2) . " " . sprintf("%.1f", $3) : roofs, \
        1):(1) with points
unset table
peak_of(d) = (words(peaks) >= 2 && word(peaks, 1) eq d) ? real(word(peaks, 2)) : \
             (words(peaks) >= 4 && word(peaks, 3) eq d) ? real(word(peaks, 4)) : 0
sources = "model cachegrind counters"
# a key entry only for a source that ran (an empty title has none)
ran(s) = strstrt(" " . present . " ", " " . word(sources, s) . " ") > 0
forms = "matmul_naive matmul_column matmul_row matmul_outer matmul_blocked matmul_openblas"
label(k) = k eq "matmul_naive" ? "dot" : k eq "matmul_column" ? "column" : \
           k eq "matmul_row" ? "row" : k eq "matmul_outer" ? "outer" : \
           k eq "matmul_blocked" ? "blocked" : "openblas"
idx(k) = k eq "matmul_naive" ? 0 : k eq "matmul_column" ? 1 : \
         k eq "matmul_row" ? 2 : k eq "matmul_outer" ? 3 : \
         k eq "matmul_blocked" ? 4 : 5
sel(d, nn) = strcol(1) eq dtype && $2 == n
do for [ci = 1:words(charts)] {
chart = word(charts, ci)
dtype = chart[1:strstrt(chart, ":") - 1]
n = int(chart[strstrt(chart, ":") + 1:])
peak = peak_of(dtype)
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1500,1300 noenhanced } \
  else { set terminal svg size 1500,1300 dynamic noenhanced }
  set output sprintf("orders-%s-%d.%s", dtype, n, fmt)
  unset xlabel
  set autoscale y
  set multiplot layout 3,1 title sprintf("C = A B, n = %d, %s: same FLOPs, different traffic", n, dtype)
  unset logscale
  set xrange [-0.5:5.5]
  set xtics ("dot" 0, "column" 1, "row" 2, "outer" 3, "blocked" 4, "openblas" 5)
  set logscale y 10
  set ylabel "bytes moved"
  set key outside right top
  set grid ytics
  set title "bytes filled into L1 (hollow, left) and the last level (filled, right), per source"
  plot for [s = 1:3] "orders.csv" \
         using (sel(0,0) && strcol(10) eq word(sources, s) && $11 > 0 ? idx(strcol(5)) - 0.4 + 0.12 * s : NaN):11 \
         skip 1 with points pointtype (4 + 2 * s) pointsize 2 title (ran(s) ? word(sources, s) . " L1" : ""), \
       for [s = 1:3] "orders.csv" \
         using (sel(0,0) && strcol(10) eq word(sources, s) && $12 > 0 ? idx(strcol(5)) + 0.02 + 0.12 * s : NaN):12 \
         skip 1 with points pointtype (5 + 2 * s) pointsize 2 title (ran(s) ? word(sources, s) . " last level" : "")
  unset logscale y
  set ylabel "GFLOP/s"
  set title "measured GFLOP/s (minimum time)"
  set style fill solid 0.6
  set boxwidth 0.5
  plot "orders.csv" using (sel(0,0) && strcol(10) eq "time" ? idx(strcol(5)) : NaN):9 \
         skip 1 with boxes title "GFLOP/s"
  set logscale xy 10
  set xrange [*:*]
  set xtics auto
  set xlabel "effective intensity: FLOPs / bytes at the last level"
  set ylabel "GFLOP/s"
  set title "the forms on the host roofline"
  set key outside right top
  set xrange [0.01:10000]
  roof(x, bw) = (x * bw < peak || peak <= 0) ? x * bw : peak
  nroofs = words(roofs) / 2
  plot for [r = 1:nroofs] roof(x, real(word(roofs, 2 * r))) \
         title sprintf("%s %s GB/s", word(roofs, 2 * r - 1), word(roofs, 2 * r)) with lines, \
       "orders.csv" using (sel(0,0) && strcol(10) eq "best" && idx(strcol(5)) % 2 == 0 ? $14 : NaN):9:(label(strcol(5))) \
         skip 1 with labels point pointtype 7 pointsize 1.5 offset 1,0.8 notitle, \
       "orders.csv" using (sel(0,0) && strcol(10) eq "best" && idx(strcol(5)) % 2 == 1 ? $14 : NaN):9:(label(strcol(5))) \
         skip 1 with labels point pointtype 7 pointsize 1.5 offset 1,-0.8 notitle
  unset multiplot
}
}
