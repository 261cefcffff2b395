set terminal pngcairo size 1100,650 font ',10'
set termoption noenhanced
set grid
set key outside right top
set logscale y
set ylabel 'latency (µs, log scale)'
set xlabel 'percentile'
set xtics ('p50' 0.301030, 'p75' 0.602060, 'p90' 1.000000, 'p95' 1.301030, 'p99' 2.000000, 'p99.9' 3.000000, 'p99.99' 4.000000)
set xrange [0.2:4.100]
set output "percentiles_PING.png"
set title "PING: latency by percentile"
plot "percentiles_PING.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_PING.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_PING.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
set output "percentiles_SET.png"
set title "SET: latency by percentile"
plot "percentiles_SET.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_SET.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_SET.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
set output "percentiles_GET.png"
set title "GET: latency by percentile"
plot "percentiles_GET.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_GET.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_GET.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
set output "percentiles_HSET.png"
set title "HSET: latency by percentile"
plot "percentiles_HSET.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_HSET.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_HSET.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
set output "percentiles_HGET.png"
set title "HGET: latency by percentile"
plot "percentiles_HGET.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_HGET.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_HGET.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
set output "percentiles_ZADD.png"
set title "ZADD: latency by percentile"
plot "percentiles_ZADD.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_ZADD.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_ZADD.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
set output "percentiles_ZSCORE.png"
set title "ZSCORE: latency by percentile"
plot "percentiles_ZSCORE.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_ZSCORE.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_ZSCORE.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
set output "percentiles_PUBSUB.png"
set title "PUBSUB: latency by percentile"
plot "percentiles_PUBSUB.dat" index 0 using 1:2 with linespoints lw 2 title "goblin-ring-sbe", \
     "percentiles_PUBSUB.dat" index 1 using 1:2 with linespoints lw 2 title "goblin-ring-resp", \
     "percentiles_PUBSUB.dat" index 2 using 1:2 with linespoints lw 2 dt 2 title "floor-ring (ECHO)"
unset logscale y
unset xrange
unset xlabel
set xtics auto
set key off
set yrange [0:*]
set ylabel 'average of per-op p50 (µs); floors: ECHO p50'
set style fill solid 0.7 border -1
set boxwidth 0.6
set xtics rotate by -30 left
set output 'average_p50.png'
set title 'Average p50 per configuration (ranked), and transport floors'
plot 'average_p50.dat' using 0:2:3:xtic(1) with boxes lc variable, '' using 0:2:(sprintf('%.2f', $2)) with labels offset 0,1
