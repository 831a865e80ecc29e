package oracle;

import ch.ethz.systems.floodns.core.*;
import ch.ethz.systems.floodns.deeplearningtraining.Job;
import ch.ethz.systems.floodns.ext.allocator.SimpleMmfAllocator;
import ch.ethz.systems.floodns.ext.basicsim.schedule.JobEpochSchedule;
import ch.ethz.systems.floodns.ext.basicsim.topology.FileToTopologyConverter;
import ch.ethz.systems.floodns.ext.basicsim.topology.Topology;
import ch.ethz.systems.floodns.ext.logger.empty.VoidLoggerFactory;
import ch.ethz.systems.floodns.ext.routing.*;
import org.apache.commons.lang3.tuple.ImmutablePair;

import java.io.*;
import java.util.*;

/**
 * Static oracle: uses the authors' own classes to route, all at once, the first-epoch connections
 * of every job in a traffic-pairs directory, exactly as their JobEpochStartEvent would (addSrcDst for
 * every connection, then determinePathAssignments), with the first k cores failed the way their
 * NodeFailureSchedule/NodeFailureEvent do it. Writes one CSV row per connection.
 *
 * args: topology.properties trafficPairsDir numFailedCores algorithm(ecmp|mcvlc|edge_coloring) runDir outCsv
 */
public class StaticRoute {
    public static void main(String[] args) throws Exception {
        String topoFile = args[0], pairsDir = args[1];
        int numFailed = Integer.parseInt(args[2]);
        String alg = args[3], runDir = args[4], outCsv = args[5];
        long end = 604800000000000L;

        Topology topology = FileToTopologyConverter.convert(topoFile);
        Network network = topology.getNetwork();
        Simulator simulator = new Simulator();
        simulator.setup(network, new SimpleMmfAllocator(simulator, network), new VoidLoggerFactory(simulator));

        JobEpochSchedule schedule = new JobEpochSchedule(pairsDir, topology, end);

        TopologyRoutingStrategy strategy;
        switch (alg) {
            case "ecmp": strategy = new EcmpRoutingStrategy(simulator, topology, new Random(1)); break;
            case "mcvlc": strategy = new McvlcRoutingStrategy(simulator, topology); break;
            case "edge_coloring": strategy = new EdgeColoringRoutingStrategy(simulator, topology, runDir); break;
            default: throw new IllegalArgumentException(alg);
        }
        // Creates the jobs and their connections (same code path as BasicSimulation)
        List<Event> events = new ArrayList<>(schedule.getEvents(simulator, strategy));
        // The simulator triggers the JobEpochStartEvents in time order; each adds its stageConnections
        // (HashMap<stage, HashSet<Connection>>) in iteration order. We read that field reflectively so
        // that the insertion order into the strategy's hash sets is the simulator's.
        events.sort(Comparator.comparingLong(Event::getTime));
        java.lang.reflect.Field scField = ch.ethz.systems.floodns.ext.basicsim.schedule.JobEpochStartEvent.class.getDeclaredField("stageConnections");
        scField.setAccessible(true);
        List<Map<Integer, Set<Connection>>> epochConns = new ArrayList<>();
        for (Event ev : events) {
            @SuppressWarnings("unchecked")
            Map<Integer, Set<Connection>> sc = (Map<Integer, Set<Connection>>) scField.get(ev);
            epochConns.add(sc);
        }

        // Node failures, as NodeFailureSchedule (reversed core id list, first k) + NodeFailureEvent.trigger
        List<Integer> coreIds = new ArrayList<>(topology.getDetails().getCoreNodeIds());
        System.err.println("core id iteration order: " + coreIds);
        Collections.reverse(coreIds);
        List<Integer> failed = new ArrayList<>();
        for (int i = 0; i < numFailed; i++) {
            Node n = network.getNode(coreIds.get(i));
            n.getOutgoingLinks().forEach(l -> network.getFailedLinks().add(l));
            n.getIncomingLinks().forEach(l -> network.getFailedLinks().add(l));
            network.getFailedNodes().add(n);
            failed.add(n.getNodeId());
        }
        System.err.println("failed cores: " + failed);

        // Epoch-0 connections of every job, in the simulator's addSrcDst order
        Map<Connection, Integer> connStage = new LinkedHashMap<>();
        Map<Connection, Job> connJob = new HashMap<>();
        for (Map<Integer, Set<Connection>> sc : epochConns) {
            for (Map.Entry<Integer, Set<Connection>> e : sc.entrySet()) {
                for (Connection conn : e.getValue()) {
                    connStage.put(conn, e.getKey());
                    connJob.put(conn, simulator.getJobs().get(conn.getJobId()));
                }
            }
        }

        Map<Connection, AcyclicPath> paths = new HashMap<>();
        long t0 = System.nanoTime();
        if (strategy instanceof CentralizedRoutingStrategy) {
            CentralizedRoutingStrategy cs = (CentralizedRoutingStrategy) strategy;
            for (Connection c : connStage.keySet()) cs.addSrcDst(c);
            if (cs instanceof McvlcRoutingStrategy) dumpGreedyOrder((McvlcRoutingStrategy) cs, topology, outCsv + ".order.csv");
            cs.determinePathAssignments();
            for (Connection c : connStage.keySet()) {
                Job job = connJob.get(c);
                paths.put(c, job.getCommoditiesPathMap().get(ImmutablePair.of(c.getSrcNodeId(), c.getDstNodeId())));
            }
        } else {
            EcmpRoutingStrategy es = (EcmpRoutingStrategy) strategy;
            for (Connection c : connStage.keySet()) paths.put(c, es.assignSinglePath(c));
        }
        long t1 = System.nanoTime();
        System.err.println("routing time ms: " + (t1 - t0) / 1e6);

        try (PrintWriter w = new PrintWriter(new FileWriter(outCsv))) {
            w.println("job_id,stage,conn_id,src,dst,src_tor,dst_tor,core_node,spine,path");
            List<Connection> sorted = new ArrayList<>(connStage.keySet());
            sorted.sort(Comparator.comparingInt(Connection::getConnectionId));
            for (Connection c : sorted) {
                AcyclicPath p = paths.get(c);
                int srcTor = topology.getDetails().getTorIdOfServer(c.getSrcNodeId());
                int dstTor = topology.getDetails().getTorIdOfServer(c.getDstNodeId());
                int core = -1;
                StringBuilder sb = new StringBuilder();
                if (p == null) { sb.append("NULL"); }
                else {
                    for (Link l : p) {
                        if (sb.length() > 0) sb.append(">");
                        sb.append(l.getFrom());
                        if (topology.getDetails().getCoreNodeIds().contains(l.getTo())) core = l.getTo();
                    }
                    sb.append(">").append(p.get(p.size() - 1).getTo());
                }
                int spine = core < 0 ? -1 : core - Collections.min(topology.getDetails().getCoreNodeIds());
                w.println(connJob.get(c).getJobId() + "," + connStage.get(c) + "," + c.getConnectionId() + "," + c.getSrcNodeId() + "," + c.getDstNodeId()
                        + "," + srcTor + "," + dstTor + "," + core + "," + spine + "," + sb);
            }
        }
    }

    /** Reads McvlcRoutingStrategy's private per-ToR HashSets (reflection) and writes the visit order that
     *  its sortTorConnections + forEach produce: group key, group size, then each connection once. */
    @SuppressWarnings("unchecked")
    static void dumpGreedyOrder(McvlcRoutingStrategy cs, Topology topology, String out) throws Exception {
        java.lang.reflect.Field fu = McvlcRoutingStrategy.class.getDeclaredField("uplinkTorConnections");
        java.lang.reflect.Field fd = McvlcRoutingStrategy.class.getDeclaredField("downlinkTorConnections");
        fu.setAccessible(true); fd.setAccessible(true);
        Map<Integer, Set<Connection>> up = (Map<Integer, Set<Connection>>) fu.get(cs);
        Map<Integer, Set<Connection>> down = (Map<Integer, Set<Connection>>) fd.get(cs);
        TreeMap<String, Set<Connection>> m = new TreeMap<>();
        for (int t : topology.getDetails().getTorNodeIds()) {
            if (up.get(t) != null) m.put("a_" + t, up.get(t));
            if (down.get(t) != null) m.put("b_" + t, down.get(t));
        }
        List<Map.Entry<String, Set<Connection>>> es = new ArrayList<>(m.entrySet());
        es.sort(Comparator.<Map.Entry<String, Set<Connection>>>comparingInt(e -> e.getValue().size()).reversed()
                .thenComparing(Map.Entry.comparingByKey()));
        Set<Connection> seen = new HashSet<>();
        int pos = 0;
        try (PrintWriter w = new PrintWriter(new FileWriter(out))) {
            w.println("position,group,group_size,conn_id,src,dst");
            for (Map.Entry<String, Set<Connection>> e : es) {
                for (Connection c : e.getValue()) {
                    if (seen.add(c)) {
                        w.println((pos++) + "," + e.getKey() + "," + e.getValue().size() + "," + c.getConnectionId() + "," + c.getSrcNodeId() + "," + c.getDstNodeId());
                    }
                }
            }
        }
    }
}
