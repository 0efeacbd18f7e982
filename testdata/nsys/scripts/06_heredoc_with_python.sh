#!/bin/bash
cat > /tmp/warmup.sh <<'EOS'
python warmup.py --steps 10
EOS
cat <<-EOF2
	python is mentioned here too
	EOF2
python3 server.py --port 9000
