package dev.tunnel.server.config;

/**
 * One entry of {@code allowPorts}: either {@code {start = 6000, end = 7000}} or
 * {@code {single = 3389}}. 0 means "not given", as in frp.
 */
public class PortRange {
    public int start;
    public int end;
    public int single;

    public PortRange() {
    }

    public PortRange(int start, int end, int single) {
        this.start = start;
        this.end = end;
        this.single = single;
    }

    public boolean contains(int port) {
        return single != 0 ? port == single : port >= start && port <= end;
    }

    @Override
    public String toString() {
        return single != 0 ? "{single = " + single + "}" : "{start = " + start + ", end = " + end + "}";
    }
}
