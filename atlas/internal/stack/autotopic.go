package stack

import (
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// topicSaver makes topics that kfake creates on a metadata request durable
// at once. kfake writes its topic list (topics.json) when a topic is made by
// CreateTopics, but not when a metadata request auto-creates one: such a
// topic, and every record in it, would be lost if the broker died before a
// clean Close. The saver watches metadata requests that may auto-create
// and, the first time it sees a topic name, has the cluster create and
// delete a marker topic, which rewrites topics.json with all topics.
type topicSaver struct {
	cluster *kfake.Cluster
	kick    chan struct{} // one pending save; sends never block
	stop    chan struct{}
	done    chan struct{}

	seen map[string]bool // topic names already saved; used only by observe
}

// saveMarkerTopic is the topic created and deleted to rewrite topics.json.
const saveMarkerTopic = "__atlas_save_topics"

func startTopicSaver(c *kfake.Cluster) *topicSaver {
	s := &topicSaver{
		cluster: c,
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		seen:    map[string]bool{},
	}
	c.ControlKey(int16(kmsg.Metadata), s.observe)
	go s.loop()
	return s
}

// observe runs on kfake's request loop for every metadata request; it only
// looks and lets kfake handle the request. It must not call the cluster.
func (s *topicSaver) observe(req kmsg.Request) (kmsg.Response, error, bool) {
	m, ok := req.(*kmsg.MetadataRequest)
	if !ok || !m.AllowAutoTopicCreation {
		return nil, nil, false
	}
	fresh := false
	for _, t := range m.Topics {
		if t.Topic != nil && !s.seen[*t.Topic] {
			s.seen[*t.Topic] = true
			fresh = true
		}
	}
	if fresh {
		select {
		case s.kick <- struct{}{}:
		default: // a save is already pending and will cover this topic
		}
	}
	return nil, nil, false
}

// loop saves the topic list after each kick. The cluster serves a save
// after the metadata request that kicked it, so the new topic is in it.
func (s *topicSaver) loop() {
	defer close(s.done)
	for {
		select {
		case <-s.stop:
			return
		case <-s.kick:
			if s.cluster.CreateTopic(saveMarkerTopic, 1, nil) == nil {
				s.cluster.DeleteTopic(saveMarkerTopic)
			}
		}
	}
}

// close stops the saver; it returns after any save in progress.
func (s *topicSaver) close() {
	close(s.stop)
	<-s.done
}
