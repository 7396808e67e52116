package dev.servletqos.sim;

/** One user of a closed class: runs sessions back to back until the population shrinks or the load ends. */
final class User {

    final ClassRun cls;

    User(ClassRun cls) {
        this.cls = cls;
    }
}
