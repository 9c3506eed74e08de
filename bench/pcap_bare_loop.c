/* The floor for any libpcap reader: open a capture, pcap_next_ex until the
 * end, count. bench/compare_flows.sh times ccreplay against it. */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CAPTURE\n", argv[0]);
    return 2;
  }
  char errbuf[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(argv[1], errbuf);
  if (p == NULL) {
    fprintf(stderr, "%s\n", errbuf);
    return 1;
  }
  struct pcap_pkthdr* header;
  const u_char* data;
  unsigned long long packets = 0;
  while (pcap_next_ex(p, &header, &data) == 1) ++packets;
  pcap_close(p);
  printf("%llu packets\n", packets);
  return 0;
}
