package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** CSV and SVG output: well formed, complete, and what the docs need (series, a dashed reference, markers). */
class ChartTest {

    @TempDir
    Path dir;

    @Test
    void csvHasARowPerPeriodAndClassAndAColumnPerMetric() throws Exception {
        SimResult r = Simulation.run(Scenarios.busyPolicy(), Scenarios.busyWorkload(), 2);
        Path csv = dir.resolve("run.csv");
        r.writeCsv(csv);
        String[] lines = Files.readString(csv).split("\n");
        assertEquals(1 + r.periods() * r.classes().size(), lines.length);
        String[] header = lines[0].split(",", -1);
        assertEquals(2 + Metric.values().length, header.length);
        assertEquals("time_s", header[0]);
        assertEquals("queue_delay_p95", header[2 + Metric.QUEUE_DELAY_P95.ordinal()]);
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            assertEquals(header.length, f.length, lines[i]);
            for (int k = 2; k < f.length; k++) {
                if (!f[k].isEmpty()) {
                    Double.parseDouble(f[k]);
                }
            }
        }
        assertTrue(lines[1].startsWith("1,premium,"), lines[1]);
    }

    @Test
    void svgIsWellFormedWithSeriesReferenceAndMarker() throws Exception {
        SimResult r = Simulation.run(Scenarios.busyPolicy(), Scenarios.busyWorkload(), 2);
        SvgChart chart = r.chart(Metric.QUEUE_DELAY_P95, "Queue delay, p95 <per class>")
                .reference(1.0, "target 1 s").marker(150, "premium x2").build();
        String svg = chart.toSvg();
        chart.write(dir.resolve("delay.svg"));
        assertEquals(svg, Files.readString(dir.resolve("delay.svg")));

        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        f.setNamespaceAware(true);
        Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        Element root = doc.getDocumentElement();
        assertEquals("svg", root.getLocalName());
        assertEquals("http://www.w3.org/2000/svg", root.getNamespaceURI());

        int seriesPaths = 0;
        NodeList paths = doc.getElementsByTagNameNS("*", "path");
        for (int i = 0; i < paths.getLength(); i++) {
            Element p = (Element) paths.item(i);
            if (p.hasAttribute("stroke") && p.getAttribute("d").startsWith("M")
                    && !p.getAttribute("stroke").equals("#333333")) {
                seriesPaths++;
            }
        }
        assertEquals(2, seriesPaths, "a line per class");
        int dashed = 0;
        NodeList lines = doc.getElementsByTagNameNS("*", "line");
        for (int i = 0; i < lines.getLength(); i++) {
            if (((Element) lines.item(i)).hasAttribute("stroke-dasharray")) {
                dashed++;
            }
        }
        assertEquals(2, dashed, "the reference and the marker");
        assertTrue(svg.contains("Queue delay, p95 &lt;per class&gt;"), "text is escaped");
        assertTrue(svg.contains(">premium<") && svg.contains(">basic<") && svg.contains(">target 1 s<"));
        assertTrue(!svg.contains("href") && !svg.contains("<script") && !svg.contains("<style"), "self-contained");
    }

    @Test
    void niceSteps() {
        assertEquals(0.5, SvgChart.niceStep(0.37), 1e-12);
        assertEquals(2, SvgChart.niceStep(1.2), 1e-12);
        assertEquals(50, SvgChart.niceStep(42), 1e-12);
        assertEquals(10, SvgChart.niceStep(6), 1e-12);
    }
}
