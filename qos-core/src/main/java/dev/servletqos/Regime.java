package dev.servletqos;

import dev.servletqos.policy.ContentTrees;
import dev.servletqos.policy.QosPolicy;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the request path reads from one policy, swapped whole when the policy is reloaded: the policy, its
 * classifier (credentials and request rules), its token-bucket rules, its virtual servers, its content trees, and
 * the class names by index. Each reload is a new generation; a class index is only meaningful
 * with its generation, and {@link #resolve} carries an index of an earlier generation over by the class's name (a
 * class the new policy no longer has goes to its default class). Immutable.
 */
final class Regime {

    final QosPolicy policy;
    final Classifier classifier;
    final int generation;
    final int defaultIndex;
    /** The token-bucket rules, carried over by name from the generation before ({@link RequestBuckets}). */
    final RequestBuckets buckets;
    /** The virtual servers, carried over by name from the generation before ({@link VirtualServers}). */
    final VirtualServers hosts;
    final ContentTrees contentTrees;
    /** The exempt rules and the stream pool's paths ({@link FrontDoor}). */
    final FrontDoor front;
    private final Map<String, Integer> index = new HashMap<>();
    /** The class names of every generation so far, by generation. */
    private final String[][] names;

    private Regime(QosPolicy policy, Classifier classifier, int generation, String[][] earlier, Regime before) {
        this.policy = policy;
        this.classifier = classifier;
        this.generation = generation;
        this.buckets = new RequestBuckets(policy, before == null ? null : before.buckets);
        this.hosts = new VirtualServers(policy, before == null ? null : before.hosts);
        this.contentTrees = policy.contentTrees();
        this.front = new FrontDoor(policy);
        List<String> n = policy.classes().stream().map(c -> c.name()).toList();
        for (int i = 0; i < n.size(); i++) {
            index.put(n.get(i), i);
        }
        this.defaultIndex = index.get(policy.defaultClass());
        this.names = Arrays.copyOf(earlier, generation + 1);
        this.names[generation] = n.toArray(String[]::new);
    }

    /** The first generation. */
    static Regime first(QosPolicy policy, Classifier classifier) {
        return new Regime(policy, classifier, 0, new String[0][], null);
    }

    /** The next generation, for a reloaded policy. */
    Regime next(QosPolicy policy, Classifier classifier) {
        return new Regime(policy, classifier, generation + 1, names, this);
    }

    /** This generation's index of class {@code c} of generation {@code g}: the same name, else the default class. */
    int resolve(int g, int c) {
        return g == generation ? c : indexOf(names[g][c]);
    }

    /** This generation's index of the class of that name, or the default class's if there is none. */
    int indexOf(String name) {
        int i = classIndex(name);
        return i >= 0 ? i : defaultIndex;
    }

    /** This generation's index of the class of that name, or -1 if there is none. */
    int classIndex(String name) {
        Integer i = index.get(name);
        return i != null ? i : -1;
    }

    /** The name of this generation's class {@code c}. */
    String name(int c) {
        return names[generation][c];
    }

}
