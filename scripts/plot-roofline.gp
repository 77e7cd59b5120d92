# The host roofline with the kernels on it: roofbench all writes this
# script beside roofline-roofs.dat, roofline-labels.csv and
# roofline-points.csv in its run folder and runs it there, with no
# argument:
#   gnuplot plot-roofline.gp
# One panel per dtype and thread count, log-log, GFLOP/s against FLOP per
# byte of compulsory traffic: the measured compute roofs (scalar and each
# vector width, grey), OpenBLAS's GEMM as the achievable one (dashed),
# each memory level's read roof (the best of the read, read2 and read4
# kernels there; dashed, the mixed roof that kernels writing C are held
# to, where it lies above) as a diagonal up to where it meets
# the top peak (blue, labelled above it, where no kernel can be), each
# roof labelled with its value; every verified
# kernel row at its analytic intensity and best rate. Writes roofline.png
# and roofline.svg.
# Where the orders step left its traffic per level, the hierarchical
# roofline: each form at the intensity of its traffic into L1, into the
# last level and from memory (compulsory), at its measured rate, joined
# in its kernel's colour; where the network step measured the link, the
# network as a roof of its own on the 1-thread panels (dotted, orange).
# A legend entry appears only in a panel that has its data.
# roofline-roofs.dat: kind,dtype,threads,name,intensity,gflops (one
#   segment a block); roofline-labels.csv: kind,dtype,threads,intensity,
#   gflops,text; roofline-points.csv: dtype,threads,kernel,intensity,gflops;
#   roofline-levels.csv: dtype,threads,kernel,level,order,intensity,gflops,
#   source.
set datafile separator ","
add_word(list, w) = strstrt(" " . list . " ", " " . w . " ") ? list : \
                    (list eq "" ? w : list . " " . w)
before(s, c) = s[1:strstrt(s, c) - 1]
after(s, c) = s[strstrt(s, c) + 1:]
panels = ""
kernels = ""
levpanels = ""
netpanels = ""
mixpanels = ""
# fixed ranges for the scan: a file with no row (no orders step, say)
# would otherwise leave an invalid autoscaled range
set xrange [0:2]
set yrange [0:2]
set table $discard
plot "roofline-points.csv" skip 1 using \
       (panels = add_word(panels, strcol(1) . ":" . sprintf("%d", $2)), \
        kernels = add_word(kernels, strcol(3)), 1):(1) with points
plot "roofline-levels.csv" skip 1 using \
       (levpanels = add_word(levpanels, strcol(1) . ":" . sprintf("%d", $2)), \
        kernels = add_word(kernels, strcol(3)), 1):(1) with points
plot "roofline-roofs.dat" using \
       ((strcol(1) eq "network") ? \
        (netpanels = add_word(netpanels, strcol(2) . ":" . sprintf("%d", $3)), 1) : 1):(1) \
       with points
plot "roofline-roofs.dat" using \
       ((strcol(1) eq "mixed") ? \
        (mixpanels = add_word(mixpanels, strcol(2) . ":" . sprintf("%d", $3)), 1) : 1):(1) \
       with points
unset table
set autoscale
has(list, w) = strstrt(" " . list . " ", " " . w . " ") > 0
np = words(panels)
if (np == 0) { print "nothing to draw"; exit }
cols = np > 1 ? 2 : 1
rows = int((np + 1) / 2)
colour(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #393b79 #637939 #843c39 #7b4173 #000000", (i - 1) % 15 + 1)
marker(i) = word("7 5 9 11 13 15 4 6 8 10 12 14 1 2 3", (i - 1) % 15 + 1)
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 760 * cols + 220, 600 * rows noenhanced font ",10" } \
  else { set terminal svg size 760 * cols + 220, 600 * rows dynamic noenhanced font ",10" }
  set output "roofline." . fmt
  set multiplot layout rows, cols title "The host's measured roofline, every kernel on it (best of its samples)"
  do for [pi = 1:np] {
    panel = word(panels, pi)
    dt = before(panel, ":")
    th = int(after(panel, ":"))
    set title sprintf("%s, %d thread%s", dt, th, th == 1 ? "" : "s")
    set logscale xy
    set xrange [0.01:1000]
    set yrange [*:*]
    set autoscale yfixmax
    set offsets 0, 0, graph 0.06, 0
    set xlabel "intensity (FLOP per byte of compulsory traffic)"
    set ylabel "GFLOP/s"
    set grid xtics ytics
    set key outside right top spacing 1.05 font ",8"
    plot "roofline-roofs.dat" using \
           ((strcol(1) eq "compute" && strcol(2) eq dt && $3 == th) ? $5 : NaN):6 \
           with lines linewidth 2 linecolor rgb "#555555" title "compute roofs (each vector width)", \
         "roofline-roofs.dat" using \
           ((strcol(1) eq "gemm" && strcol(2) eq dt && $3 == th) ? $5 : NaN):6 \
           with lines dashtype 2 linewidth 2 linecolor rgb "#000000" title "OpenBLAS GEMM (achievable)", \
         "roofline-roofs.dat" using \
           ((strcol(1) eq "memory" && strcol(2) eq dt && $3 == th) ? $5 : NaN):6 \
           with lines linewidth 2 linecolor rgb "#4a7fb5" title "memory levels (read roof)", \
         "roofline-roofs.dat" using \
           ((strcol(1) eq "mixed" && strcol(2) eq dt && $3 == th) ? $5 : NaN):6 \
           with lines dashtype 2 linewidth 1.5 linecolor rgb "#4a7fb5" \
           title (has(mixpanels, panel) ? "mixed roof, above the read (matmul, batched)" : ""), \
         "roofline-labels.csv" skip 1 using \
           ((strcol(1) eq "compute" && strcol(2) eq dt && $3 == th) ? $4 : NaN):5:6 \
           with labels right font ",8" notitle, \
         "roofline-labels.csv" skip 1 using \
           ((strcol(1) eq "gemm" && strcol(2) eq dt && $3 == th) ? $4 : NaN):5:6 \
           with labels left font ",8" notitle, \
         "roofline-labels.csv" skip 1 using \
           ((strcol(1) eq "memory" && strcol(2) eq dt && $3 == th) ? $4 : NaN):5:6 \
           with labels right font ",8" textcolor rgb "#4a7fb5" notitle, \
         "roofline-roofs.dat" using \
           ((strcol(1) eq "network" && strcol(2) eq dt && $3 == th) ? $5 : NaN):6 \
           with lines dashtype 3 linewidth 2.5 linecolor rgb "#e6550d" \
           title (has(netpanels, panel) ? "network (MPI all-reduce, bus bandwidth)" : ""), \
         "roofline-labels.csv" skip 1 using \
           ((strcol(1) eq "network" && strcol(2) eq dt && $3 == th) ? $4 : NaN):5:6 \
           with labels left font ",8" textcolor rgb "#e6550d" notitle, \
         for [k = 1:words(kernels)] "roofline-levels.csv" skip 1 using \
           ((strcol(1) eq dt && $2 == th && strcol(3) eq word(kernels, k)) ? $6 : NaN):7 \
           with lines linewidth 1 linecolor rgb colour(k) notitle, \
         "roofline-levels.csv" skip 1 using \
           ((strcol(1) eq dt && $2 == th) ? $6 : NaN):7:(int(word("4 8 6", int($5) + 1))) \
           with points pointtype variable pointsize 0.9 linecolor rgb "#333333" notitle, \
         keyentry with points pointtype 4 pointsize 0.9 linecolor rgb "#333333" \
           title (has(levpanels, panel) ? "orders' traffic into L1" : ""), \
         keyentry with points pointtype 8 pointsize 0.9 linecolor rgb "#333333" \
           title (has(levpanels, panel) ? "into the last level" : ""), \
         keyentry with points pointtype 6 pointsize 0.9 linecolor rgb "#333333" \
           title (has(levpanels, panel) ? "from memory (compulsory)" : ""), \
         for [k = 1:words(kernels)] "roofline-points.csv" skip 1 using \
           ((strcol(1) eq dt && $2 == th && strcol(3) eq word(kernels, k)) ? $4 : NaN):5 \
           with points pointtype int(marker(k)) pointsize 1.4 linewidth 1.5 linecolor rgb colour(k) \
           title word(kernels, k)
  }
  unset multiplot
}
