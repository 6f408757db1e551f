package graph

// Distances fills dist (len NumNodes()) with the number of links on a
// shortest path from node src (which must be a node of g) to every node,
// -1 for the unreachable, by breadth-first search; queue is scratch space
// (it is grown if too short and returned for reuse). Only nodes that
// forward (Forwards) are crossed: in a switch-centric graph a server other
// than src is reached but never left, since flows enter and leave the
// network at servers and only switches forward them; in a server-centric
// graph servers are crossed too. Cost O(nodes + links).
func (g *Graph) Distances(src int32, dist []int32, queue []int32) []int32 {
	for i := range dist {
		dist[i] = -1
	}
	return g.bfs(src, dist, queue)
}

// bfs is Distances' search, dist -1 for every node.
func (g *Graph) bfs(src int32, dist []int32, queue []int32) []int32 {
	queue = append(queue[:0], src)
	dist[src] = 0
	relay := g.relay
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		if u != src && u < relay {
			continue
		}
		for l := g.outStart[u]; l < g.outStart[u+1]; l++ {
			v := g.head[l]
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return queue
}

// Reach is Distances for a dist that holds -1 for every node but those
// in queue, the nodes a previous Reach returned (or none): it resets only
// those, so a search costs O(the nodes and links it reaches) rather than
// O(nodes). It returns the nodes reached from src, in non-decreasing
// distance, in queue's space; dist is then -1 for every other node.
func (g *Graph) Reach(src int32, dist []int32, queue []int32) []int32 {
	for _, v := range queue {
		dist[v] = -1
	}
	return g.bfs(src, dist, queue)
}

// Diameter returns the largest number of links on a shortest path between
// two servers, and false if some server cannot reach another. It runs a
// breadth-first search from every server: O(servers · (nodes + links)),
// meant for tests and small graphs.
func (g *Graph) Diameter() (int, bool) {
	dist := make([]int32, g.NumNodes())
	var queue []int32
	diam := int32(0)
	for s := int32(0); s < g.servers; s++ {
		queue = g.Distances(s, dist, queue)
		for d := int32(0); d < g.servers; d++ {
			if dist[d] < 0 {
				return 0, false
			}
			diam = max(diam, dist[d])
		}
	}
	return int(diam), true
}
