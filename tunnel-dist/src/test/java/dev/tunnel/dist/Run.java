package dev.tunnel.dist;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One finished run of a program: exit status, stdout, stderr. */
final class Run {
    final int exit;
    final String out;
    final String err;

    private Run(int exit, String out, String err) {
        this.exit = exit;
        this.out = out;
        this.err = err;
    }

    /** Runs program with args, JAVA_HOME and JAVA_OPTS unset unless env sets them; waits at most 50 s. */
    static Run of(Path program, Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(program.toString()));
        command.addAll(List.of(args));
        return of(command, env);
    }

    static Run of(List<String> command, Map<String, String> env) throws Exception {
        return of(command, env, Path.of("."));
    }

    /** Runs command in directory. */
    static Run of(List<String> command, Map<String, String> env, Path directory) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        builder.environment().remove("JAVA_HOME");
        builder.environment().remove("JAVA_OPTS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        var stderr = process.getErrorStream();
        var errText = new StringBuilder();
        Thread errReader = new Thread(() -> {
            try {
                errText.append(new String(stderr.readAllBytes(), StandardCharsets.UTF_8));
            } catch (java.io.IOException e) {
                errText.append(e);
            }
        });
        errReader.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(50, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not end within 50 s");
        }
        errReader.join();
        return new Run(process.exitValue(), out, errText.toString());
    }

    List<String> outLines() {
        return out.lines().toList();
    }
}
