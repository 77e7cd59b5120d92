# The network roof: roofbench network writes this script beside its CSVs
# in the run folder and runs it there, with no argument:
#   gnuplot plot-network.gp
# Panels: the ping-pong's one-way time against the message size with the
# fitted link T = latency + bytes / W; the windowed bandwidth and the
# all-reduce's bus bandwidth; the network roof on the host roofline (per
# rank: each dtype's peak, the memory levels' diagonals and the link's,
# the sharded matmul's points at their link intensity D / ((N-1) s)); and
# per dtype the sharded matmul's step times against D, measured and
# predicted, with the crossovers marked. Writes network.png and
# network.svg.
# network-p2p.csv: kind,bytes,window,samples,time_min_s,time_median_s,
#   gbs_best,gbs_median,fit_s,residual
# network-allreduce.csv: dtype,bytes,samples,time_min_s,time_median_s,
#   algbw_gbs,busbw_gbs
# network-shard.csv: dtype,b,d,f,ranks,compute_s,allreduce_s,sequential_s,
#   overlapped_s,predicted_compute_s,predicted_allreduce_s,
#   sequential_gflops_per_rank,
#   link_intensity,verified,max_error
# network-crossover.csv: dtype,b,kind,d,time_s
# network-roofs.csv: source,dtype,intensity,gflops
# network-parts.csv: part,rows (how many rows each file above holds, so
# that a part that was not measured is neither read nor drawn).
set datafile separator ","
add_word(list, w) = strstrt(" " . list . " ", " " . w . " ") ? list : \
                    (list eq "" ? w : list . " " . w)
nlat = 0
nbw = 0
nar = 0
nsh = 0
nroof = 0
set table $discard
plot "network-parts.csv" skip 1 using \
       (strcol(1) eq "latency" ? nlat = $2 : \
        strcol(1) eq "bandwidth" ? nbw = $2 : \
        strcol(1) eq "allreduce" ? nar = $2 : \
        strcol(1) eq "shard" ? nsh = $2 : \
        strcol(1) eq "roofs" ? nroof = $2 : 0, 1):(1) with points
dtypes = ""
batches = ""
ardtypes = ""
levels = ""
if (nsh > 0) {
  plot "network-shard.csv" skip 1 using \
         (dtypes = add_word(dtypes, strcol(1)), \
          batches = add_word(batches, sprintf("%d", $2)), 1):(1) with points
}
if (nar > 0) {
  plot "network-allreduce.csv" skip 1 using \
         (ardtypes = add_word(ardtypes, strcol(1)), 1):(1) with points
}
nlink = 0
if (nroof > 0) {
  plot "network-roofs.csv" skip 1 using \
         (levels = (strcol(1) eq "peak" || strcol(1) eq "link") ? levels : add_word(levels, strcol(1)), \
          nlink = nlink + (strcol(1) eq "link"), 1):(1) with points
}
unset table
nd = words(dtypes)
draw_lat = nlat > 1
draw_bw = nlat + nbw + nar > 1
draw_roof = nroof > 0 && nsh > 0
panels = draw_lat + draw_bw + draw_roof + nd
if (panels == 0) { print "nothing to draw"; exit }
cols = panels < 3 ? panels : 3
rows = int((panels + cols - 1) / cols)
colour(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
grey(i) = word("#555555 #888888 #aaaaaa #333333", (i - 1) % 4 + 1)
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 640 * cols, 520 * rows noenhanced font ",10" } \
  else { set terminal svg size 640 * cols, 520 * rows dynamic noenhanced font ",10" }
  set output "network." . fmt
  set multiplot layout rows, cols title "The network roof: the link measured over MPI, and the sharded matmul against D* = (N-1) s C / W"
  set grid xtics ytics
  set logscale xy
  set format x "%.0s%cB"

  if (draw_lat) {
  set title "point to point: one-way time (half a ping-pong)"
  set xlabel "message size (bytes)"
  set ylabel "one-way time (microseconds)"
  set format y "%g"
  set key top left
  plot "network-p2p.csv" skip 1 using (strcol(1) eq "latency" ? $2 : NaN):($6 * 1e6) \
         with linespoints pointtype 7 linecolor rgb colour(1) title "measured (median)", \
       "network-p2p.csv" skip 1 using (strcol(1) eq "latency" ? $2 : NaN):($9 * 1e6) \
         with lines dashtype 2 linewidth 2 linecolor rgb "#000000" title "fit: latency + bytes / W"
  }

  if (draw_bw) {
  set title "bandwidth against the message size"
  set ylabel "GB/s"
  set key bottom right
  plot "network-p2p.csv" skip 1 using (strcol(1) eq "bandwidth" ? $2 : NaN):7 \
         with linespoints pointtype 7 linecolor rgb colour(1) title "window of non-blocking sends (best)", \
       "network-p2p.csv" skip 1 using (strcol(1) eq "latency" ? $2 : NaN):7 \
         with linespoints pointtype 6 linecolor rgb colour(2) title "ping-pong: bytes / one-way time", \
       for [i = 1:words(ardtypes)] "network-allreduce.csv" skip 1 \
         using (strcol(1) eq word(ardtypes, i) ? $2 : NaN):7 \
         with linespoints pointtype 4 + 2 * i linecolor rgb colour(2 + i) \
         title ("all-reduce bus bandwidth, " . word(ardtypes, i))
  }

  if (draw_roof) {
  set title "the network roof on the host roofline (per rank)"
  set xlabel "FLOP per byte (of memory traffic; for the link: sent over it)"
  set ylabel "GFLOP/s per rank"
  set format x "%g"
  set key bottom right
  plot for [i = 1:nd] "network-roofs.csv" skip 1 \
         using ((strcol(1) eq "peak" && strcol(2) eq word(dtypes, i)) ? $3 : NaN):4 \
         with lines linewidth 2 linecolor rgb grey(i) title ("peak, " . word(dtypes, i)), \
       for [l = 1:words(levels)] "network-roofs.csv" skip 1 \
         using ((strcol(1) eq word(levels, l) && strcol(2) eq word(dtypes, 1)) ? $3 : NaN):4 \
         with lines dashtype 3 linewidth 2 linecolor rgb colour(l + 2) title (word(levels, l) . " bandwidth (read, 1 thread)"), \
       for [q = 1:(nlink > 0)] "network-roofs.csv" skip 1 \
         using ((strcol(1) eq "link" && strcol(2) eq word(dtypes, 1)) ? $3 : NaN):4 \
         with lines linewidth 2.5 linecolor rgb "#d62728" title "the link (all-reduce fit, link.mpi)", \
       for [i = 1:nd] "network-shard.csv" skip 1 \
         using (strcol(1) eq word(dtypes, i) ? $13 : NaN):12 \
         with points pointtype 5 + 2 * i pointsize 0.8 linecolor rgb colour(i) \
         title ("sharded matmul, " . word(dtypes, i) . " (every B and D)")
  }

  do for [i = 1:nd] {
    dt = word(dtypes, i)
    set title sprintf("sharded matmul, %s: time per step against D", dt)
    set xlabel "contraction size D (split over the ranks)"
    set ylabel "seconds per step (median)"
    set format x "%g"
    set format y "%.0e"
    set key outside below center horizontal maxcols 2 width -4 font ",8"
    plot for [j = 1:words(batches)] "network-shard.csv" skip 1 \
           using ((strcol(1) eq dt && $2 == int(word(batches, j))) ? $3 : NaN):6 \
           with linespoints pointtype 7 linecolor rgb colour(j) title ("compute, B = " . word(batches, j)), \
         for [j = 1:words(batches)] "network-shard.csv" skip 1 \
           using ((strcol(1) eq dt && $2 == int(word(batches, j))) ? $3 : NaN):7 \
           with linespoints pointtype 5 dashtype 2 linecolor rgb colour(j) title ("all-reduce, B = " . word(batches, j)), \
         for [j = 1:words(batches)] "network-shard.csv" skip 1 \
           using ((strcol(1) eq dt && $2 == int(word(batches, j))) ? $3 : NaN):9 \
           with linespoints pointtype 9 dashtype 3 linecolor rgb colour(j) title ("overlapped, B = " . word(batches, j)), \
         for [j = 1:words(batches)] "network-shard.csv" skip 1 \
           using ((strcol(1) eq dt && $2 == int(word(batches, j))) ? $3 : NaN):10 \
           with lines linewidth 1 linecolor rgb "#999999" title (j == 1 ? "predicted compute 2B(D/N)F/C" : ""), \
         for [j = 1:words(batches)] "network-shard.csv" skip 1 \
           using ((strcol(1) eq dt && $2 == int(word(batches, j))) ? $3 : NaN):11 \
           with lines dashtype 2 linewidth 1 linecolor rgb "#999999" title (j == 1 ? "predicted all-reduce lat + 2(N-1)/N sBF/W" : ""), \
         "network-crossover.csv" skip 1 \
           using ((strcol(1) eq dt && strcol(3) eq "predicted") ? $4 : NaN):5 \
           with points pointtype 6 pointsize 2.5 linewidth 2 linecolor rgb "#000000" title "D* predicted", \
         "network-crossover.csv" skip 1 \
           using ((strcol(1) eq dt && strcol(3) eq "measured") ? $4 : NaN):5 \
           with points pointtype 12 pointsize 2.5 linewidth 2 linecolor rgb "#d62728" title "crossover measured"
  }
  unset multiplot
}
