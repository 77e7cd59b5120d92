# The traffic model against the simulation over a size sweep: roofbench
# orders --sweep ... --traffic model,cachegrind writes this script beside
# orders-traffic.csv in its run folder and runs it there, with no
# argument:
#   gnuplot plot-traffic.gp
# One chart per dtype, two panels: the bytes filled into L1 and into the
# last level against n (N = P = M), log scales, per form the model as a
# dashed line (a small cross at each size, so that a sweep of one size
# still shows it) and cachegrind as points, in the form's colour (a form
# without a model, OpenBLAS, as points alone), and the compulsory bytes
# (each matrix once) in grey. Where a form's points leave its line, the
# model misses an effect; where both rise above the grey line, the form
# fell out of that level. Writes
# traffic-<dtype>.png and .svg. orders-traffic.csv columns:
# dtype,kernel,source,n,l1_bytes,ll_bytes, each series (dtype, kernel,
# source) in consecutive rows.
set datafile separator ","
add_word(list, w) = strstrt(" " . list . " ", " " . w . " ") ? list : \
                    (list eq "" ? w : list . " " . w)
dtypes = ""
forms = ""
mforms = ""
set table $discard
plot "orders-traffic.csv" skip 1 using \
       (dtypes = add_word(dtypes, strcol(1)), \
        forms = strcol(3) eq "cachegrind" ? add_word(forms, strcol(2)) : forms, \
        mforms = strcol(3) eq "model" ? add_word(mforms, strcol(2)) : mforms, \
        1):(1) with points
unset table
# a form's colour follows its place among all forms, with or without a model
place(k) = strstrt(" " . forms . " ", " " . k . " ") > 0 ? \
           words(substr(" " . forms . " ", 1, strstrt(" " . forms . " ", " " . k . " "))) + 1 : 1
label(k) = k eq "matmul_naive" ? "dot-product" : k eq "matmul_column" ? "column" : \
           k eq "matmul_row" ? "row" : k eq "matmul_outer" ? "outer-product" : \
           k eq "matmul_blocked" ? "blocked" : \
           k eq "matmul_openblas" ? "OpenBLAS" : k
colour(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf", i)
# one series' bytes, else no point (a gap between series, none within)
pick(src, k, col) = (strcol(1) eq dtype && strcol(3) eq src && \
                     strcol(2) eq k && column(col) > 0) ? column(col) : NaN
do for [di = 1:words(dtypes)] {
dtype = word(dtypes, di)
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1500,700 noenhanced } \
  else { set terminal svg size 1500,700 dynamic noenhanced }
  set output sprintf("traffic-%s.%s", dtype, fmt)
  set multiplot layout 1,2 title sprintf("%s: the traffic model (dashed) against cachegrind (points), per form", dtype)
  set logscale x 2
  set logscale y 10
  set format y "%.0e"
  set xlabel "n (N = P = M)"
  set ylabel "bytes filled"
  set grid xtics ytics
  do for [lv = 1:2] {
    col = lv == 1 ? 5 : 6
    set title (lv == 1 ? "into L1" : "into the last level")
    # one key, top left of the last level's panel: small n fit there, so
    # no form's traffic reaches that corner
    if (lv == 2) { set key top left box opaque font ",10" } else { unset key }
    plot for [i = 1:words(mforms)] "orders-traffic.csv" skip 1 \
           using 4:(pick("model", word(mforms, i), col)) \
           with linespoints lw 2 dt (10, 6) pt 1 ps 0.8 \
           lc rgb colour(place(word(mforms, i))) \
           title label(word(mforms, i)) . ": model", \
         for [i = 1:words(forms)] "orders-traffic.csv" skip 1 \
           using 4:(pick("cachegrind", word(forms, i), col)) \
           with points pt 7 ps 1.3 lc rgb colour(i) \
           title label(word(forms, i)) . ": cachegrind" . \
                 (strstrt(" " . mforms . " ", " " . word(forms, i) . " ") ? "" : " (no model)"), \
         "orders-traffic.csv" skip 1 using 4:(pick("compulsory", "all", col)) \
           with lines lw 1 lc rgb "#888888" title "compulsory (each matrix once)"
  }
  unset multiplot
}
}
