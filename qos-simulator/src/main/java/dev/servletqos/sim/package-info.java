/**
 * A deterministic discrete-event simulation of a server, with the real engine in front of it: the papers'
 * experiments replayed in milliseconds (habit 10 of the house style), for the controllers and the docs.
 *
 * <p>Test support, not part of the library: the {@code qos-simulator} module, which a module's tests or
 * benchmarks use with {@code <scope>test</scope>}. Its own tests are the ones that drive it.
 *
 * <h2>Describe a workload</h2>
 * A {@link dev.servletqos.sim.Workload} holds one {@link dev.servletqos.sim.ClassLoad} per class and a
 * {@link dev.servletqos.sim.ServerModel}:
 * <ul>
 *   <li>open classes: sessions arrive as a Poisson process at a {@link dev.servletqos.sim.Rate} (constant,
 *       {@code step(at, rate)}, {@code ramp(from, to, rate)}); closed classes: a population of users running
 *       sessions back to back, changed with {@code populationAt(at, users)};</li>
 *   <li>a {@link dev.servletqos.sim.SessionProfile}: requests with a mean service cost and think times in
 *       between; a refused first request ends the session ({@code retries(n, delay)} tries it again);</li>
 *   <li>the server: workers (default unlimited), the service-time {@link dev.servletqos.sim.Distribution}
 *       (exponential, lognormal, bounded Pareto), processor sharing on C cores, slowdowns of the backend.</li>
 * </ul>
 * Every request presents {@code X-Sim-Class: <class>} and, once admitted, the engine's admission cookie; build
 * the matching policy with {@link dev.servletqos.sim.SimEngine#policy}. {@link dev.servletqos.sim.Paper001}
 * has paper 001's workloads.
 *
 * <h2>Run it, read the series, plot</h2>
 * <pre>{@code
 * SimResult r = Simulation.of(policy, workload).seed(7)
 *         .at(Duration.ofSeconds(100), e -> e.setBudget("basic", 2))          // a change mid-run
 *         .onStart((engine, periodic) -> ...)                                 // a controller, see below
 *         .run();
 * double[] p95 = r.series("premium").values(Metric.QUEUE_DELAY_P95);          // one value per period
 * double w = r.series("premium").mean(Metric.QUEUE_DELAY_MEAN, 150, 300);     // weighted by grants
 * r.totals("basic").expirations();                                            // whole-run counts
 * r.writeCsv(Path.of("target/sim/run.csv"));
 * r.chart(Metric.QUEUE_DELAY_MEAN, "Delay").reference(1.0, "target").marker(150, "x2")
 *         .build().write(Path.of("docs/img/delay.svg"));
 * }</pre>
 *
 * <h2>The engine and the clock</h2>
 * {@link dev.servletqos.sim.SimEngine} is the one class that calls the engine's API: {@code QosEngine.create}
 * on the simulation's {@link dev.servletqos.sim.SimClock}, {@code enter}, {@code Ticket.await},
 * {@code complete}, {@code start} with the simulation's {@link dev.servletqos.Periodic} (the engine's expiry
 * sweep every 100 ms and its control loop every control period, as on the adapters), {@code snapshot}. The event loop orders events by time, then by the order they were
 * scheduled; each class has its own seeded random streams; so a run is a function of policy, workload and seed.
 * Grants and expiries are handled as events at the same instant, never inside the engine call that caused
 * them, as a container resumes a parked request on another thread.
 *
 * <h2>Control laws</h2>
 * The engine's control loop runs in simulated time: a policy whose {@code control.mode} is absolute or
 * relative runs the real law every control period, and {@code Simulation.onStart((engine, periodic) ->
 * engine.overrideControlLaw(law))} runs any other (an identification).
 */
package dev.servletqos.sim;
