# Shell functions shared by the bench scripts; source it, do not run it.

wait_port() { # wait_port PORT [SECONDS] : until 127.0.0.1:PORT accepts a connection
  local end=$(( $(date +%s) + ${2:-20} ))
  while [ "$(date +%s)" -lt $end ]; do
    (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

nginx_conf() { # nginx_conf DIR PORT : prints a 1-worker nginx config serving /ping on 127.0.0.1:PORT, state in DIR
  mkdir -p "$1/nginx"
  cat <<NGINX
worker_processes 1;
pid $1/nginx.pid;
error_log $1/nginx/error.log;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $1/nginx; proxy_temp_path $1/nginx; fastcgi_temp_path $1/nginx;
  uwsgi_temp_path $1/nginx; scgi_temp_path $1/nginx;
  keepalive_requests 10000000;
  server { listen 127.0.0.1:$2 backlog=4096; location /ping { return 200 "pong\n"; } }
}
NGINX
}
