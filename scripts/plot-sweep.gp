# The batch sweep: roofbench sweep writes this script beside sweep.csv,
# sweep-roofs.csv and sweep-knees.csv in its run folder and runs it there,
# with no argument: everything it needs is in those files.
#   gnuplot plot-sweep.gp
# One panel per dtype and thread count: fraction of that team's measured
# peak against the batch size B, log axes. Points: each kernel at each
# weight level (one colour per pair), the minimum time with a bar down to
# the median; open circles: each curve's 50% knee (none where the curve
# starts past half its plateau, as batched does); lines: the host roof
# for each weight level (dashed), the streaming probe measured around the
# points of each level (dotted: the weights streamed with B FMAs a weight
# and nothing else), and each reference profile on its own roofline (grey,
# its own peak), with its threshold where it turns flat.
# Writes sweep.png and sweep.svg.
# sweep.csv columns: weights,p,m,kernel,dtype,threads,batch,flops,bytes,
# intensity,samples,time_min_s,time_median_s,spread,gflops_best,
# gflops_median,peak_fraction_best,peak_fraction_median,roof_level,
# roof_gflops,roof_fraction,peak_now_gflops,read_now_gbs,roof_now_gflops,
# roof_now_fraction,probe_gflops,probe_fraction,probe_roof_fraction;
# sweep-roofs.csv: source (host, probe or a profile),dtype,threads,weights,
# batch,peak_fraction; sweep-knees.csv: weights,kernel,dtype,threads,
# knee50,knee50_peak_fraction,knee90,ridge_batch,ridge_batch_now,
# knee50_at_or_below_first_point (1: no circle, the curve starts past
# half its plateau).
set datafile separator ","
in_list(list, w) = strstrt(" " . list . " ", " " . w . " ") > 0
add_word(list, w) = in_list(list, w) ? list : (list eq "" ? w : list . " " . w)
panels = ""
curves = ""
levels = ""
profiles = ""
# what each panel ("dtype:threads") draws, so that its key names that and
# nothing more: its curves ("panel:kernel@level"), host roofs and streaming
# probes ("panel:level"; a sweep of batched alone runs no probe), and the
# panels with a knee circle (none where every curve starts past half its
# plateau, as batched does)
shown = ""
hosted = ""
probed = ""
circled = ""
knees = 0
# the table plots need a valid range even where a file has no rows (a
# single B makes no knees); each panel sets its own below. gnuplot 5.4
# runs an iteration over 1:0 once, so a sweep with no knees draws its
# circles from sweep.csv instead, whose rows then match no panel (column
# 3 there is M, never a dtype): a file of rows that all miss is drawn
# without the warning that a file of no rows gets
set xrange [0:2]
set yrange [0:2]
set table $discard
plot "sweep.csv" skip 1 using \
       (panels = add_word(panels, strcol(5) . ":" . sprintf("%d", $6)), \
        curves = add_word(curves, strcol(4) . "@" . strcol(1)), \
        levels = add_word(levels, strcol(1)), \
        shown = add_word(shown, strcol(5) . ":" . sprintf("%d", $6) . ":" . strcol(4) . "@" . strcol(1)), \
        1):(1) with points
plot "sweep-roofs.csv" skip 1 using \
       (profiles = (strcol(1) eq "host" || strcol(1) eq "probe") ? profiles : add_word(profiles, strcol(1)), \
        hosted = strcol(1) eq "host" ? add_word(hosted, strcol(2) . ":" . sprintf("%d", $3) . ":" . strcol(4)) : hosted, \
        probed = strcol(1) eq "probe" ? add_word(probed, strcol(2) . ":" . sprintf("%d", $3) . ":" . strcol(4)) : probed, \
        1):(1) with points
# (its header row read too, as a point of no knee: a file with no row
# after it, a single B's, would otherwise make gnuplot warn)
plot "sweep-knees.csv" using \
       (knees = knees + valid(5), \
        circled = valid(5) && !(valid(10) && $10 == 1) ? add_word(circled, strcol(3) . ":" . sprintf("%d", $4)) : circled, \
        1):(1) with points
unset table
before(s, c) = s[1:strstrt(s, c) - 1]
after(s, c) = s[strstrt(s, c) + 1:]
label(k) = k eq "matmul_blocked" ? "blocked" : k eq "matmul_openblas" ? "OpenBLAS" : \
           k[1:7] eq "matmul_" ? k[8:] : k
np = words(panels)
cols = np > 1 ? 2 : 1
rows = int((np + 1) / 2)
# colours: one per kernel and level; roofs in the level's colour family
colour(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #393b79 #637939", (i - 1) % 12 + 1)
roofcolour(i) = word("#555555 #000000 #888888 #222222", (i - 1) % 4 + 1)
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 800 * cols + 300, 620 * rows noenhanced font ",10" } \
  else { set terminal svg size 800 * cols + 300, 620 * rows dynamic noenhanced font ",10" }
  set output "sweep." . fmt
  set multiplot layout rows, cols title "[B,P] x [P,M]: fraction of peak against the batch size B, measured and predicted"
  do for [pi = 1:np] {
    panel = word(panels, pi)
    dt = before(panel, ":")
    th = int(after(panel, ":"))
    set title sprintf("%s, %d thread%s", dt, th, th == 1 ? "" : "s")
    set logscale xy
    set xrange [*:*]
    # to 1.5 at least (the invisible line below), and further where a
    # point lies above that (a peak measured in a slow spell): never cut
    set yrange [*:*]
    set autoscale yfixmax
    set xlabel "batch size B (rows of A)"
    set ylabel "fraction of the measured peak"
    set grid xtics ytics mytics
    set key outside right top spacing 1.1
    set rmargin 30
    plot 1.5 notitle lt nodraw, \
         for [li = 1:words(levels)] "sweep-roofs.csv" skip 1 \
           using ((strcol(1) eq "host" && strcol(2) eq dt && $3 == th && strcol(4) eq word(levels, li)) ? $5 : NaN):6 \
           with lines dashtype 2 linewidth 2 linecolor rgb (roofcolour(li)) \
           title (in_list(hosted, panel . ":" . word(levels, li)) ? "host roof, " . word(levels, li) . " weights" : ""), \
         for [li = 1:words(levels)] "sweep-roofs.csv" skip 1 \
           using ((strcol(1) eq "probe" && strcol(2) eq dt && $3 == th && strcol(4) eq word(levels, li)) ? $5 : NaN):6 \
           with lines dashtype 3 linewidth 2.5 linecolor rgb (roofcolour(li)) \
           title (in_list(probed, panel . ":" . word(levels, li)) ? "streaming probe, " . word(levels, li) . " weights" : ""), \
         for [qi = 1:words(profiles)] "sweep-roofs.csv" skip 1 \
           using ((strcol(1) eq word(profiles, qi)) ? $5 : NaN):6 \
           with lines linewidth 1.5 linecolor rgb word("#a0a0a0 #c8a0a0 #a0a0c8 #a0c8a0", (qi - 1) % 4 + 1) dashtype qi + 2 \
           title (word(profiles, qi) . " (own peak)"), \
         for [ci = 1:words(curves)] "sweep.csv" skip 1 \
           using ((strcol(5) eq dt && $6 == th && strcol(4) . "@" . strcol(1) eq word(curves, ci)) ? $7 : NaN):17:18:17 \
           with yerrorlines pointtype 7 pointsize 0.9 linewidth 1.5 linecolor rgb (colour(ci)) \
           title (in_list(shown, panel . ":" . word(curves, ci)) ? label(before(word(curves, ci), "@")) . ", " . after(word(curves, ci), "@") . " weights" : ""), \
         for [ci = 1:words(curves)] (knees > 0 ? "sweep-knees.csv" : "sweep.csv") skip 1 \
           using ((strcol(3) eq dt && $4 == th && strcol(2) . "@" . strcol(1) eq word(curves, ci) && !(valid(10) && $10 == 1)) ? $5 : NaN):6 \
           with points pointtype 6 pointsize 2.6 linewidth 2 linecolor rgb (colour(ci)) \
           title (ci == 1 && in_list(circled, panel) ? "50% knees (open circles)" : "")
  }
  unset multiplot
}
