node packages/bench/dist/cli.js position --transfers 20000 --knob POSITION_PARTITIONS_CONCURRENTLY=1,2,4
