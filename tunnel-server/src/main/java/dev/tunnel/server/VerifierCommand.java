package dev.tunnel.server;

import dev.tunnel.protocol.auth.TokenVerifier;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code verifier --token-file FILE}: prints the SPAKE2+ verifier of the token in FILE (trailing line
 * breaks dropped, as {@code auth.tokenFile} reads it) with a fresh random salt, ready for
 * {@code auth.tokenVerifier} or a {@code [[users]]} entry's {@code tokenVerifier}. The token is
 * read from a file, never from the command line (which other users can see); errors never echo it.
 */
@Command(name = "verifier", mixinStandardHelpOptions = true,
        description = "Prints the token verifier (auth.tokenVerifier) of the token in a file.")
final class VerifierCommand implements Callable<Integer> {

    @Option(names = "--token-file", required = true, paramLabel = "FILE", description = "File holding the token.")
    Path tokenFile;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    @Override
    public Integer call() {
        String token;
        try {
            token = Files.readString(tokenFile, StandardCharsets.UTF_8).replaceAll("[\\r\\n]+$", "");
        } catch (IOException e) {
            stderr.println("verifier: cannot read --token-file " + tokenFile + " (" + e.getClass().getSimpleName() + ")");
            return 1;
        }
        if (token.isEmpty()) {
            stderr.println("verifier: --token-file " + tokenFile + " is empty");
            return 1;
        }
        String verifier = TokenVerifier.create(token).format();
        stdout.println(verifier);
        stderr.println("# in the server config, instead of auth.token (or a [[users]] entry's token):");
        stderr.println("#   auth.tokenVerifier = \"" + verifier + "\"");
        stderr.println("# only clients with the PAKE login (auth.pake = \"preferred\" or \"required\") can log in with it");
        return 0;
    }
}
